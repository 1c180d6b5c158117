#!/usr/bin/env python3
"""What NVRTC, as CuPy calls it, predefines and lets a kernel include: the table simcore's
preprocessor must match so that no `#if` can tell the simulator from a GPU.

Run on a machine with CuPy and an NVIDIA GPU:

    python tools/nvrtc_environment.py --out conformance/results/nvrtc_environment.json

How: the candidate names are every macro `nvcc -E -Xcompiler -dM` prints for a device
compilation (host compiler and nvcc names together) plus NVRTC's documented ones; one kernel per
chunk of candidates stringifies each defined one into a device string table (`#ifdef NAME`
... `#NAME` after expansion), compiled through `cupy.RawModule` with the options given (CuPy's
defaults when none), launched, and read back. A function-like macro stringifies to its own name
and is recorded as such ("function-like"). Headers and type names are probed one compile each.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Named in NVRTC's documentation or known to differ between compilers; probed whatever nvcc says.
DOCUMENTED = """
__CUDACC__ __CUDACC_RTC__ __CUDACC_RTC_INT128__ __CUDACC_RTC_FLOAT128__ __CUDACC_RTC_MINIMAL__
__CUDACC_VER_MAJOR__ __CUDACC_VER_MINOR__ __CUDACC_VER_BUILD__ __CUDACC_RDC__ __CUDACC_EWP__
__CUDACC_DEBUG__ __CUDACC_RELAXED_CONSTEXPR__ __CUDACC_EXTENDED_LAMBDA__ __CUDA_ARCH__
__CUDA_ARCH_LIST__ __CUDA_ARCH_FEAT_SM90_ALL __CUDA_ARCH_SPECIFIC__ __CUDA_ARCH_FAMILY_SPECIFIC__
__CUDA_ARCH_HAS_FEATURE__ __NVCC__ __NVCC_DIAG_PRAGMA_SUPPORT__ __CUDA_API_VERSION __CUDART_API_VERSION
CUDART_VERSION __CUDA_RUNTIME_H__ __cplusplus __STDC__ __STDC_VERSION__ __STDC_HOSTED__ __EDG__
__EDG_VERSION__ __GNUC__ __GNUC_MINOR__ __GNUC_PATCHLEVEL__ __clang__ __llvm__ _MSC_VER _WIN32 _WIN64
__linux__ __linux linux __unix__ __x86_64__ __x86_64 __amd64__ __aarch64__ __LP64__ _LP64 __CHAR_BIT__
__SIZEOF_INT__ __SIZEOF_LONG__ __SIZEOF_POINTER__ __SIZEOF_SIZE_T__ __SIZEOF_LONG_LONG__
__SIZEOF_INT128__ __INT_MAX__ __LONG_MAX__ __CHAR_UNSIGNED__ __BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__
__OPTIMIZE__ __NO_INLINE__ __FAST_MATH__ __USE_FAST_MATH__ __FINITE_MATH_ONLY__ __CUDA_FTZ __CUDA_PREC_DIV
__CUDA_PREC_SQRT __cpp_exceptions __EXCEPTIONS __cpp_rtti __GXX_RTTI __cpp_constexpr __cpp_if_constexpr
__cpp_lambdas __cpp_variadic_templates __cpp_static_assert __cpp_decltype __cpp_auto_type
__cpp_range_based_for __cpp_nullptr __cpp_char8_t __cpp_concepts __cpp_inline_variables
__cpp_structured_bindings __cpp_fold_expressions __cpp_aggregate_nsdmi __cpp_binary_literals
__cpp_digit_separators __cpp_generic_lambdas __cpp_init_captures __cpp_return_type_deduction
__cpp_variable_templates __cpp_unicode_characters __cpp_unicode_literals __cpp_user_defined_literals
__cpp_rvalue_references __cpp_initializer_lists __cpp_delegating_constructors __cpp_alias_templates
__cpp_attributes __cpp_raw_strings __cpp_ref_qualifiers __cpp_hex_float __cpp_deduction_guides
__cpp_noexcept_function_type __cpp_nontype_template_args __cpp_template_auto __cpp_sized_deallocation
__cpp_aligned_new __cpp_namespace_attributes __cpp_enumerator_attributes __cpp_capture_star_this
__cpp_inheriting_constructors __cpp_nsdmi __cpp_threadsafe_static_init __cpp_guaranteed_copy_elision
NULL nullptr true false bool INFINITY NAN HUGE_VAL HUGE_VALF INT_MAX UINT_MAX WARP_SZ warpSize
CUDART_INF_F CUDART_NAN_F CUDART_PI_F __CUDA_FP16_H__ __CUDA_BF16_H__ _COOPERATIVE_GROUPS_H_
"""

HEADERS = """cuda_fp16.h cuda_bf16.h cuda_fp8.h cooperative_groups.h cooperative_groups/reduce.h
cooperative_groups/memcpy_async.h cuda_runtime.h cuda_runtime_api.h cuda.h device_launch_parameters.h
vector_types.h vector_functions.h math_constants.h sm_60_atomic_functions.h crt/math_functions.h
math_functions.h device_functions.h cuda_pipeline.h cuda_awbarrier.h mma.h
stdint.h cstdint stddef.h cstddef stdio.h cstdio stdlib.h cstdlib math.h cmath assert.h cassert limits.h
climits float.h cfloat string.h cstring type_traits utility limits
cuda/std/cstdint cuda/std/type_traits cuda/std/limits cuda/std/atomic cuda/atomic cuda/barrier
cuda/std/cmath cuda/std/utility cuda/std/array cuda/std/complex cuda/pipeline
cupy/complex.cuh cupy/carray.cuh cupy/atomics.cuh""".split()

TYPES = """int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t intptr_t
uintptr_t half __half __half2 __nv_bfloat16 float2 float4 double2 double4 longlong4 ulonglong4 int4
uint4 char4 uchar4 short4 dim3 uint3 bool wchar_t char16_t char32_t __int128 std::size_t""".split()


def nvcc_names() -> dict[str, bool]:
    """name -> is function-like, from nvcc's predefined macros (empty when nvcc is missing)."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "probe.cu")
        src.write_text("__global__ void k() {}\n")
        out = subprocess.run([nvcc, "-arch=sm_90", "-E", "-Xcompiler", "-dM", str(src)],
                             capture_output=True, text=True).stdout
    names = {}
    for m in re.finditer(r"^#define (\w+)(\()?", out, re.M):
        names[m.group(1)] = bool(m.group(2))
    return names


def compile_ok(cupy, code: str, options: tuple, name: str = "k"):
    try:
        mod = cupy.RawModule(code=code, options=options)
        mod.get_function(name)
        return True, ""
    except Exception as exc:  # CompileException and friends: the first line says why
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        return False, re.sub(r"/tmp/\S*?\.cu(?=\()", "<source>", first)   # CuPy's temporary file name


def probe_chunk(cupy, names: list[str], options: tuple) -> dict[str, str]:
    lines = ["#define SIMCORE_PROBE_STR2(...) #__VA_ARGS__",
             "#define SIMCORE_PROBE_STR(...) SIMCORE_PROBE_STR2(__VA_ARGS__)",
             '__device__ const char simcore_probe_table[] = ""']
    for name in names:
        lines += [f"#ifdef {name}", f'"{name}\\x01" SIMCORE_PROBE_STR({name}) "\\x02"', "#endif"]
    lines += [";", 'extern "C" __global__ void k(char* out, int n) {',
              "    for (int i = threadIdx.x; i < n && i < (int)sizeof(simcore_probe_table); i += blockDim.x)",
              "        out[i] = simcore_probe_table[i];", "}"]
    mod = cupy.RawModule(code="\n".join(lines), options=options)
    kern = mod.get_function("k")
    n = 1 << 20
    out = cupy.zeros(n, dtype=cupy.uint8)
    kern((1,), (256,), (out, cupy.int32(n)))
    raw = bytes(out.get()).split(b"\x00", 1)[0].decode("utf-8", "replace")
    found = {}
    for item in raw.split("\x02"):
        if "\x01" in item:
            name, value = item.split("\x01", 1)
            found[name] = value
    return found


def probe_macros(cupy, names: list[str], options: tuple) -> dict[str, str]:
    """Compile in chunks; a chunk that fails is split until the one name that breaks it, which is
    then recorded by `#ifdef` alone."""
    found: dict[str, str] = {}
    stack = [names[i:i + 256] for i in range(0, len(names), 256)]
    while stack:
        chunk = stack.pop()
        try:
            found.update(probe_chunk(cupy, chunk, options))
        except Exception:
            if len(chunk) > 1:
                half = len(chunk) // 2
                stack += [chunk[:half], chunk[half:]]
                continue
            name = chunk[0]
            ok, _ = compile_ok(cupy, f'#ifndef {name}\n#error undefined\n#endif\nextern "C" __global__ void k() {{}}\n',
                               options)
            if ok:
                found[name] = "<defined; value not stringifiable>"
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--option", action="append", default=[], help="an NVRTC option (repeatable)")
    args = ap.parse_args(argv)
    try:
        import cupy
    except ImportError:
        print("nvrtc_environment: needs CuPy and a GPU", file=sys.stderr)
        return 2
    options = tuple(args.option)
    nvcc = nvcc_names()
    candidates = sorted(set(nvcc) | set(DOCUMENTED.split()))
    macros = probe_macros(cupy, candidates, options)
    table = {}
    for name in sorted(macros):
        value = macros[name]
        function_like = nvcc.get(name, False) and value == name
        table[name] = {"function_like": True} if function_like else {"value": value}
    headers = {}
    for header in HEADERS:
        ok, why = compile_ok(cupy, f'#include <{header}>\nextern "C" __global__ void k() {{}}\n', options)
        headers[header] = {"ok": ok} if ok else {"ok": False, "error": why}
    types = {}
    for name in TYPES:
        ok, why = compile_ok(cupy, f'extern "C" __global__ void k() {{ {name} probe_v{{}}; (void)probe_v; }}\n', options)
        types[name] = {"ok": ok} if ok else {"ok": False, "error": why}
    try:
        from cupy_backends.cuda.libs import nvrtc
        nvrtc_version = ".".join(map(str, nvrtc.getVersion()))
    except Exception as exc:  # the module moved between CuPy releases
        nvrtc_version = f"unknown ({exc})"
    result = {
        "what": "NVRTC's predefined macros, includable headers and built-in type names, as cupy.RawModule "
                "compiles (tools/nvrtc_environment.py)",
        "options": list(options),
        "nvrtc_version": nvrtc_version,
        "cupy_version": cupy.__version__,
        "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "compute_capability": cupy.cuda.Device(0).compute_capability,
        "candidates_probed": len(candidates),
        "macros": table,
        "headers": headers,
        "types": types,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"{len(table)} of {len(candidates)} candidate macros defined; "
          f"{sum(h['ok'] for h in headers.values())} of {len(headers)} headers; "
          f"{sum(t['ok'] for t in types.values())} of {len(types)} type names -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
