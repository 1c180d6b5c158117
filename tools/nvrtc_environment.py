"""Measure NVRTC's compilation environment on a GPU machine, through CuPy, as the course compiles.

    python tools/nvrtc_environment.py --out conformance/results/nvrtc_macros.json [--adopt]

For every candidate macro name (simcore's table, the documented NVRTC names, what
`nvcc -arch=sm_90 -E -Xcompiler -dM` prints when nvcc is here, and common compiler macros) it
compiles one probe kernel with `cupy.RawModule` (default options, as simcore's GPU backend) that
writes, per name, whether it is defined and its stringised replacement; a defined name whose
replacement is its own name is function-like. For every candidate header it compiles
`#include <h>`, and for every candidate type name a declaration of it (no #include). The result has the shape of simcore/data/nvrtc_environment.json ("macros",
"headers"); `--adopt` also writes those two into simcore's table (review the diff, then run
tests/test_nvrtc_environment.py). Needs CuPy and a GPU; without them it stops with exit 2.
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "simcore" / "data" / "nvrtc_environment.json"

DOCUMENTED = ("__CUDACC__", "__CUDACC_RTC__", "__CUDACC_RTC_INT128__", "__CUDACC_RTC_MINIMAL__",
              "__CUDACC_RDC__", "__CUDACC_EWP__", "__CUDACC_DEBUG__", "__CUDA_ARCH__", "__CUDA_ARCH_LIST__",
              "__CUDA_ARCH_FEAT_SM90_ALL", "__CUDA_ARCH_SPECIFIC__", "__CUDA_ARCH_FAMILY_SPECIFIC__",
              "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDACC_VER__",
              "__NVCC__", "__NVCC_DIAG_PRAGMA_SUPPORT__", "__CUDACC_DEVICE_ATOMIC_BUILTINS__",
              "__CUDACC_EXTENDED_LAMBDA__", "__CUDACC_RELAXED_CONSTEXPR__", "__cplusplus", "__STDC__",
              "__STDC_VERSION__", "__STDC_HOSTED__", "__GNUC__", "__GNUC_MINOR__", "__clang__", "__EDG__",
              "__EDG_VERSION__", "_MSC_VER", "__linux__", "__x86_64__", "__LP64__", "__CHAR_BIT__",
              "__SIZEOF_POINTER__", "__SIZEOF_LONG__", "__SIZEOF_INT__", "__INT_MAX__", "__LONG_MAX__",
              "__cpp_exceptions", "__cpp_rtti", "__cpp_constexpr", "__cpp_if_constexpr", "__OPTIMIZE__",
              "NULL", "true", "false", "nullptr", "CUDART_VERSION", "__CUDA_API_VER_MAJOR__",
              "__CUDA_NO_HALF_OPERATORS__", "__CUDA_NO_HALF_CONVERSIONS__", "WARP_SIZE", "warpSize")
HEADERS = ("cooperative_groups.h", "cooperative_groups/reduce.h", "cuda_fp16.h", "cuda_bf16.h",
           "cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h", "vector_types.h",
           "vector_functions.h", "cuda/std/cstdint", "cuda/std/climits", "cuda/std/limits",
           "cuda/std/type_traits", "cupy/complex.cuh", "cupy/carray.cuh", "cstdio", "stdio.h", "cstdint",
           "stdint.h", "cstdlib", "stdlib.h", "cmath", "math.h", "climits", "limits.h", "cassert", "assert.h",
           "cstddef", "stddef.h", "iostream", "algorithm", "sm_90_intrinsics.h", "crt/math_functions.h")
# typedef names simcore's prelude gives every kernel (simcore/preprocess.py PRELUDE), and some
# it does not: which does NVRTC know without an #include?
TYPES = ("bool", "size_t", "ptrdiff_t", "clock_t", "uint", "ushort", "ulong", "uint32_t", "int32_t", "uint64_t",
         "int64_t", "uint16_t", "int16_t", "uint8_t", "int8_t", "intptr_t", "uintptr_t")
SLOT = 256


def nvcc_names():
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / "x.cu"
        cu.write_text("")
        out = subprocess.run([nvcc, "-arch=sm_90", "-E", "-Xcompiler", "-dM", str(cu)],
                             capture_output=True, text=True).stdout
    return re.findall(r"^#define\s+([A-Za-z_]\w*)", out, re.M)


def candidates():
    table = json.loads(TABLE.read_text())
    return sorted(set(table["macros"]) | set(DOCUMENTED) | set(nvcc_names()))


def probe_source(names):
    lines = ["#define SIMCORE_PROBE_S2(...) #__VA_ARGS__", "#define SIMCORE_PROBE_S(...) SIMCORE_PROBE_S2(__VA_ARGS__)",
             'extern "C" __global__ void probe(char *out) {']
    for k, name in enumerate(names):
        lines += [f"#ifdef {name}",
                  f"  {{ const char v[] = SIMCORE_PROBE_S({name}); out[{k * SLOT}] = 1;",
                  f"    for (int i = 0; i < (int)sizeof(v) && i < {SLOT - 2}; i++) out[{k * SLOT} + 1 + i] = v[i]; }}",
                  "#endif"]
    lines.append("}")
    return "\n".join(lines)


def measure_macros(cupy, names):
    """{name: value or {"function_like": True}} for the names NVRTC defines."""
    import numpy as np   # noqa: PLC0415
    # a name whose use in the probe does not compile (a function-like macro needing arguments
    # is fine; a macro that expands to a pragma or junk is not) is probed alone, then dropped
    good = []
    try:
        cupy.RawModule(code=probe_source(names)).get_function("probe")
        names_alone = []
        good = list(names)
    except Exception:   # noqa: BLE001 - some name breaks the probe: find it, one name at a time
        names_alone = names
    for name in names_alone:
        try:
            cupy.RawModule(code=probe_source([name])).get_function("probe")
            good.append(name)
        except Exception as exc:   # noqa: BLE001 - a CuPy compile error: record it and go on
            print(f"  {name}: probe does not compile ({type(exc).__name__}); recorded as function-like",
                  file=sys.stderr)
            good.append((name, "bad"))
    plain = [n for n in good if isinstance(n, str)]
    out = cupy.zeros(len(plain) * SLOT, dtype=cupy.int8)
    cupy.RawModule(code=probe_source(plain)).get_function("probe")((1,), (1,), (out,))
    raw = cupy.asnumpy(out).astype(np.uint8).reshape(len(plain), SLOT)
    macros = {}
    for name, row in zip(plain, raw):
        if row[0]:
            value = bytes(row[1:]).split(b"\0", 1)[0].decode()
            macros[name] = {"function_like": True} if value == name else value
    for item in good:
        if not isinstance(item, str):
            macros[item[0]] = {"function_like": True}
    return macros


def measure_headers(cupy):
    found = []
    for h in HEADERS:
        try:
            cupy.RawModule(code=f'#include <{h}>\nextern "C" __global__ void k(int *a) {{ a[0] = 1; }}\n'
                           ).get_function("k")
            found.append(h)
        except Exception:   # noqa: BLE001 - not found (or not compilable) by NVRTC
            pass
    return found


def measure_types(cupy):
    found = []
    for name in TYPES:
        try:
            cupy.RawModule(code=f'extern "C" __global__ void k(int *a) {{ {name} x = 0; a[0] = (int)x; }}\n'
                           ).get_function("k")
            found.append(name)
        except Exception:   # noqa: BLE001 - an undefined type name
            pass
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "conformance" / "results" / "nvrtc_macros.json"))
    ap.add_argument("--adopt", action="store_true", help="also write the result into simcore's table")
    args = ap.parse_args(argv)
    try:
        import cupy   # noqa: PLC0415
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:   # noqa: BLE001
        print(f"needs CuPy and a GPU: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    dev = cupy.cuda.Device()
    result = {"device": f"CuPy {cupy.__version__}, NVRTC {'.'.join(map(str, cupy.cuda.nvrtc.getVersion()))}, "
                        f"sm_{dev.compute_capability}",
              "macros": measure_macros(cupy, candidates()), "headers": measure_headers(cupy),
              "types": measure_types(cupy), "types_probed": list(TYPES)}
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out}: {len(result['macros'])} macros, {len(result['headers'])} headers")
    if args.adopt:
        table = json.loads(TABLE.read_text())
        table["macros"], table["headers"] = result["macros"], result["headers"]
        table["source"] = f"measured on the GPU with tools/nvrtc_environment.py: {result['device']}"
        TABLE.write_text(json.dumps(table, indent=2) + "\n")
        print(f"adopted into {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
