"""Real CUDA the front end must take: each legal kernel here compiles and
runs with the GPU's result; each illegal one gets a CompileError that names the problem and
its line, never a SimulatorError or a bare "syntax error"."""
import numpy as np
import pytest

import simcore


def run(src, grid, block, *args, **kw):
    simcore.RawModule(code=src).get_function("k")(grid, block, args, **kw)


def compile_error(src):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src)
    return info.value


# ---------------------------------------------------------------- __shared__ pointer variables
SHARED_POINTER = r"""
extern "C" __global__ void k(int *out)
{
    __shared__ int buf[64];
    __shared__ int *p;                  // one pointer for the whole block, kept in shared memory
    if (threadIdx.x == 0) p = buf + 32;
    __syncthreads();
    p[threadIdx.x] = 10 * threadIdx.x;  // buf[32 + t]
    *(buf + threadIdx.x) = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x] + buf[32 + threadIdx.x] + (p == buf + 32);
}
"""


def test_store_and_load_through_a_shared_pointer_variable():
    out = np.zeros(32, np.int32)
    run(SHARED_POINTER, (1,), (32,), out)
    t = np.arange(32)
    np.testing.assert_array_equal(out, t + 10 * t + 1)


def test_a_shared_pointer_never_written_is_an_undefined_address():
    src = r"""
extern "C" __global__ void k(int *out)
{
    __shared__ int *p;
    out[threadIdx.x] = *p;
}
"""
    with pytest.raises(simcore.KernelFault) as info:
        run(src, (1,), (32,), np.zeros(32, np.int32))
    assert info.value.kind == "uninitialized"
    assert info.value.line == 5


# ---------------------------------------------------------------- the line of an empty loop
def test_endless_loop_with_an_empty_body_names_the_loop_line():
    src = "extern \"C\" __global__ void k(int n)\n{\n    while (n > 0) { }\n}\n"
    with pytest.raises(simcore.KernelFault) as info:
        run(src, (1,), (32,), np.int32(1), max_steps=2000)
    assert info.value.kind == "step_limit"
    assert info.value.line == 3
    assert "line 0" not in str(info.value)


# ---------------------------------------------------------------- long and deep code
def _sum_kernel(terms):
    return 'extern "C" __global__ void k(int *a)\n{\n    a[0] = ' + " + ".join(["a[1]"] * terms) + ";\n}\n"


@pytest.mark.parametrize("src,expected", [
    (_sum_kernel(490), 490 * 3),
    ('extern "C" __global__ void k(int *a)\n{\n    int x = a[1];\n    a[0] = '
     + "(" * 130 + "x + 1" + ")" * 130 + ";\n}\n", 4),
    ('extern "C" __global__ void k(int *a)\n{\n    int x = a[1];\n    a[0] = '
     + "-(" * 300 + "x" + ")" * 300 + ";\n}\n", 3),
    ('extern "C" __global__ void k(int *a)\n{\n    int x = a[1];\n    '
     + "".join(f"if (x == {i}) a[0] = {i * 7}; else " for i in range(320)) + "a[0] = -1;\n}\n", 21),
    ('extern "C" __global__ void k(int *a)\n{\n    ' + "{" * 240 + "a[0] = a[1];" + "}" * 240 + "\n}\n", 3),
], ids=["sum_of_490_terms", "130_nested_parentheses", "300_nested_negations", "else_if_chain_of_320",
        "240_nested_blocks"])
def test_long_and_deeply_nested_code_compiles(src, expected):
    a = np.array([0, 3], np.int32)
    run(src, (1,), (1,), a)
    assert a[0] == expected


def test_absurdly_deep_nesting_is_named_not_a_syntax_error():
    src = 'extern "C" __global__ void k(int *a)\n{\n    a[0] = ' + "(" * 5000 + "1" + ")" * 5000 + ";\n}\n"
    e = compile_error(src)
    assert e.construct == "nesting"
    assert "nested too deeply" in str(e)
    assert e.line == 3


# ---------------------------------------------------------------- local memory
def test_local_array_over_cudas_local_memory_limit_is_refused():
    src = ('extern "C" __global__ void k(float *a)\n{\n    float big[1 << 28];\n'
           '    big[threadIdx.x] = 1.0f;\n    a[0] = big[0];\n}\n')
    e = compile_error(src)
    assert e.construct == "local memory"
    assert e.line == 3
    assert "512 KB" in str(e) and "big" in str(e)


def test_local_arrays_within_the_limit_are_fine():
    src = ('extern "C" __global__ void k(float *a)\n{\n    float small[1024];\n'
           '    for (int i = 0; i < 1024; i++) small[i] = i;\n    a[0] = small[1023];\n}\n')
    a = np.zeros(1, np.float32)
    run(src, (1,), (1,), a)
    assert a[0] == 1023


# ---------------------------------------------------------------- host code and files
def test_include_of_a_file_is_an_error_as_in_cuda():
    e = compile_error('#include "helpers.h"\nextern "C" __global__ void k(int *a) { a[0] = 1; }\n')
    assert e.construct == "#include"
    assert e.line == 1
    assert 'cannot open source file "helpers.h"' in str(e)


def test_include_of_a_cuda_header_is_fine():
    a = np.zeros(1, np.int32)
    run('#include <cuda_runtime.h>\n#include <cuda_fp16.h>\nextern "C" __global__ void k(int *a) { a[0] = 1; }\n',
        (1,), (1,), a)
    assert a[0] == 1


def test_include_of_a_host_header_is_an_error_as_in_nvrtc():
    e = compile_error('extern "C" __global__ void k(int *a) { a[0] = 1; }\n#include <cstdio>\n')
    assert e.construct == "#include"
    assert e.line == 2
    assert 'cannot open source file "cstdio"' in str(e)


def test_kernel_launch_in_the_source_says_launches_are_host_code():
    src = ('extern "C" __global__ void k(int *a) { a[0] = 1; }\n'
           'void host(int *a)\n{\n    k<<<1, 1>>>(a);\n}\n')
    e = compile_error(src)
    assert e.construct == "<<<"
    assert e.line == 4
    assert "host code" in str(e)


def test_unterminated_string_says_so():
    src = 'extern "C" __global__ void k(int *a)\n{\n    printf("a = %d\n, a[0]);\n}\n'
    e = compile_error(src)
    assert e.construct == "missing closing quote"
    assert e.line == 3
    assert "not terminated" in str(e)
