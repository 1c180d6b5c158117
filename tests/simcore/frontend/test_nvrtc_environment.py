"""simcore presents NVRTC's compilation environment and nothing else (simcore/frontend/nvrtc_environment.py).

An answer that asks its compiler (`#ifndef __CUDACC_RTC__`, `#if __cplusplus`, `#include`) must
take the same branch on the simulator as on the GPU, and no name simcore generates may be
reachable from the student's code.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import simcore
from simcore.frontend import nvrtc_environment
from simcore.errors import CompileError

ROOT = Path(__file__).resolve().parent.parent.parent.parent
MEASURED = ROOT / "conformance" / "results" / "nvrtc_environment.json"
TABLE = nvrtc_environment.table()


def run_ints(src, n, options=()):
    out = np.full(n, -7, np.int64)
    simcore.RawModule(code=src, options=options).get_function("k")((1,), (1,), (out,))
    return out


def compile_error(src, options=()):
    with pytest.raises(CompileError) as info:
        simcore.RawModule(code=src, options=options).get_function("k")
    return info.value


def object_like_numbers():
    values = {name: entry.get("value") for name, entry in TABLE["macros"].items()}
    return {name: value for name, value in values.items()
            if isinstance(value, str) and value.rstrip("uUlL").isdigit()}


def test_every_numeric_macro_of_the_table_is_defined_with_its_value():
    numbers = object_like_numbers()
    assert {"__CUDACC__", "__CUDACC_RTC__", "__CUDA_ARCH__", "__cplusplus"} <= set(numbers)
    body = "".join(f"#ifdef {name}\n    out[{k}] = {name};\n#endif\n" for k, name in enumerate(numbers))
    got = run_ints(f'extern "C" __global__ void k(long long *out)\n{{\n{body}}}\n', len(numbers))
    assert dict(zip(numbers, got.tolist())) == {n: int(v.rstrip("uUlL")) for n, v in numbers.items()}


CHEAT = r"""
extern "C" __global__ void k(long long *out)
{
#ifndef __CUDACC_RTC__
    out[0] = 1;            // "the simulator": the right answer
#else
    out[0] = 2;            // "the GPU": a wrong one
#endif
#if defined(__cplusplus) && __cplusplus >= 201703L
    out[1] = 1;
#else
    out[1] = 2;
#endif
#if __CUDACC_VER_MAJOR__ > 0
    out[2] = 1;
#else
    out[2] = 2;
#endif
}
"""


def test_a_kernel_that_asks_whether_it_runs_under_nvrtc_takes_the_gpu_branch():
    np.testing.assert_array_equal(run_ints(CHEAT, 3), [2, 1, 1])


NOT_NVRTC = ("__NVCC__", "__GNUC__", "__clang__", "_MSC_VER", "__SIMCORE__", "SIMCORE")


@pytest.mark.parametrize("name", [n for n in NOT_NVRTC if n not in TABLE["macros"]])
def test_a_macro_nvrtc_does_not_define_is_not_defined(name):
    src = f'extern "C" __global__ void k(long long *out)\n{{\n#ifdef {name}\n    out[0] = 1;\n#else\n    out[0] = 2;\n#endif\n}}\n'
    assert run_ints(src, 1)[0] == 2


def test_cpp_keywords_are_not_macros_but_still_values():
    src = ('extern "C" __global__ void k(long long *out)\n{\n'
           '#ifdef true\n    out[0] = 1;\n#else\n    out[0] = 2;\n#endif\n'
           '#if true\n    out[1] = 1;\n#endif\n'
           '#if defined(nullptr) || defined(false)\n    out[2] = 1;\n#else\n    out[2] = 2;\n#endif\n'
           '    out[3] = true + false;\n}\n')
    np.testing.assert_array_equal(run_ints(src, 4), [2, 1, 2, 1])


def test_options_change_the_dialect_and_undefine_a_macro():
    src = ('extern "C" __global__ void k(long long *out)\n{\n    out[0] = __cplusplus;\n'
           '#ifdef __CUDACC_RTC__\n    out[1] = 1;\n#else\n    out[1] = 2;\n#endif\n}\n')
    np.testing.assert_array_equal(run_ints(src, 2, options=("-std=c++14", "-U__CUDACC_RTC__")), [201402, 2])
    e = compile_error(src, options=("--std=c++99",))
    assert "c++99" in str(e)


@pytest.mark.parametrize("use,name", [
    ("int __cg_tiled_partition = 3; out[0] = __cg_tiled_partition;", "__cg_tiled_partition"),
    ("__simcore_bar_sync(1, 32); out[0] = 1;", "__simcore_bar_sync"),
    ("int __u_x = 1; out[0] = __u_x;", "__u_x"),
    ("struct __cuda_float4 *p = 0; out[0] = p == 0;", "__cuda_float4"),
    ("out[0] = __simcore_nth_lane(0xffffffffu, 3);", "__simcore_nth_lane"),
])
def test_a_name_simcore_generates_is_undefined_in_student_code(use, name):
    src = f'extern "C" __global__ void k(long long *out)\n{{\n    {use}\n}}\n'
    e = compile_error(src)
    assert e.line == 3 and e.construct == name
    assert f'identifier "{name}" is undefined' in str(e)


def test_ifdef_of_a_generated_name_is_false_and_cooperative_groups_still_work():
    src = ('#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n'
           'extern "C" __global__ void k(long long *out)\n{\n'
           '    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());\n'
           '#ifdef __cg_tiled_partition\n    out[0] = 1;\n#else\n    out[0] = tile.size();\n#endif\n}\n')
    assert run_ints(src, 1)[0] == 32


def test_a_reserved_prefix_inside_a_string_is_only_text():
    src = 'extern "C" __global__ void k(long long *out)\n{\n    printf("__cg_x\\n");\n    out[0] = 1;\n}\n'
    assert run_ints(src, 1)[0] == 1


@pytest.mark.parametrize("header", TABLE["headers"])
def test_a_header_on_nvrtcs_include_path_is_accepted(header):
    assert run_ints(f'#include <{header}>\nextern "C" __global__ void k(long long *out) {{ out[0] = 1; }}\n', 1)[0] == 1


@pytest.mark.parametrize("header", ["cstdio", "stdio.h", "stdint.h", "iostream", "my_helpers.h"])
def test_a_header_nvrtc_cannot_find_is_an_error_at_its_line(header):
    assert header not in TABLE["headers"]
    e = compile_error(f'extern "C" __global__ void k(long long *out) {{ out[0] = 1; }}\n#include <{header}>\n')
    assert e.line == 2 and e.construct == "#include"
    assert f'cannot open source file "{header}"' in str(e)


def measured():
    if not MEASURED.exists():
        pytest.skip(f"{MEASURED.relative_to(ROOT)} is not in this checkout: run tools/nvrtc_environment.py on "
                    "the GPU machine (it writes that file; simcore's table is a copy of it)")
    return json.loads(MEASURED.read_text())


def test_the_table_is_what_the_gpu_measured():
    """simcore/data/nvrtc_environment.json and the GPU's measurement agree: the same macros with
    the same values (function-like ones marked), the same includable headers and type names."""
    gpu = measured()
    assert TABLE["macros"] == gpu["macros"]
    assert sorted(TABLE["headers"]) == sorted(h for h, r in gpu["headers"].items() if r.get("ok"))
    assert sorted(TABLE["types"]) == sorted(t for t, r in gpu["types"].items() if r.get("ok"))


def test_the_prelude_types_are_the_ones_nvrtc_knows_without_an_include():
    """The typedefs simcore gives every kernel (preprocess.PRELUDE) are type names NVRTC knows
    without an #include, and the fixed-width ones it does not know are not given."""
    import re

    from simcore.frontend.preprocess import PRELUDE
    given = set(re.findall(r"typedef [^;]*?\b(\w+);", PRELUDE))
    assert {"bool", "size_t", "ptrdiff_t", "float4", "dim3"} <= given
    assert given & {"int32_t", "uint32_t", "int64_t", "uint64_t", "uint8_t", "int8_t", "uint16_t", "int16_t",
                    "uint"} == set()
    assert {"bool", "size_t", "ptrdiff_t", "float4", "dim3"} <= set(TABLE["types"])
    if MEASURED.exists():
        gpu = json.loads(MEASURED.read_text())["types"]
        plain = {t for t in gpu if re.fullmatch(r"\w+", t)}
        assert given & plain == {t for t in plain if gpu[t].get("ok")}


def test_a_fixed_width_type_without_its_header_is_undefined_as_in_nvrtc():
    e = compile_error('extern "C" __global__ void k(long long *out)\n{\n    uint32_t x = 1;\n    out[0] = x;\n}\n')
    assert e.line == 3
