"""Simple templates over a type or an int, reached as CuPy users reach them:
RawModule(code=..., name_expressions=("k<256>", "k<float>")).get_function("k<256>")."""
import numpy as np
import pytest

import simcore

SCALE = r"""
template <typename T>
__device__ T twice(T x)
{
    return x + x;
}

template <int BLOCK, typename T>
__global__ void reverse_twice(T *a, int n)
{
    __shared__ T tile[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    tile[threadIdx.x] = i < n ? a[i] : (T)0;
    __syncthreads();
    if (i < n) a[i] = twice<T>(tile[BLOCK - 1 - threadIdx.x]);
}

extern "C" __global__ void plain(int *a)
{
    a[threadIdx.x] = twice<int>(threadIdx.x);
}
"""


def _expected(x, block):
    return 2 * x.reshape(-1, block)[:, ::-1].ravel()


@pytest.mark.parametrize("expr,block,dtype", [("reverse_twice<128, float>", 128, np.float32),
                                              ("reverse_twice<64, int>", 64, np.int32),
                                              ("reverse_twice<32, double>", 32, np.float64)])
def test_instances_named_in_name_expressions_run(expr, block, dtype):
    mod = simcore.RawModule(code=SCALE, name_expressions=("reverse_twice<128, float>", "reverse_twice<64, int>",
                                                          "reverse_twice<32, double>"))
    a = np.arange(4 * block).astype(dtype)
    x = a.copy()
    k = mod.get_function(expr)
    k((4,), (block,), (a, np.int32(4 * block)))
    np.testing.assert_array_equal(a, _expected(x, block))
    assert k.params[0].dtype == dtype


def test_the_name_is_matched_whatever_the_spaces():
    mod = simcore.RawModule(code=SCALE, name_expressions=("reverse_twice<128,float>",))
    assert mod.get_function("reverse_twice< 128, float >").name == "reverse_twice<128,float>"


def test_plain_kernels_and_template_helpers_live_together():
    mod = simcore.RawModule(code=SCALE)
    a = np.zeros(32, np.int32)
    mod.get_function("plain")((1,), (32,), (a,))
    np.testing.assert_array_equal(a, 2 * np.arange(32))


def test_an_instance_not_named_says_to_list_it():
    mod = simcore.RawModule(code=SCALE)
    with pytest.raises(simcore.CompileError) as info:
        mod.get_function("reverse_twice<256, float>")
    assert "name_expressions=('reverse_twice<256, float>',)" in str(info.value)


def test_a_module_of_templates_only_compiles_without_name_expressions():
    src = "template <int N> __global__ void k(int *a) { a[threadIdx.x] = N; }"
    mod = simcore.RawModule(code=src)
    assert mod.kernel_names == []
    mod = simcore.RawModule(code=src, name_expressions=["k<7>"])
    a = np.zeros(4, np.int32)
    mod.get_function("k<7>")((1,), (4,), (a,))
    assert (a == 7).all()


def test_default_template_argument_and_bool_argument():
    src = r"""
template <int N = 3, bool ADD = true>
__global__ void k(int *a)
{
    a[threadIdx.x] = ADD ? threadIdx.x + N : threadIdx.x - N;
}
"""
    mod = simcore.RawModule(code=src, name_expressions=("k<>", "k<5, false>"))
    a = np.zeros(4, np.int32)
    mod.get_function("k<>")((1,), (4,), (a,))
    np.testing.assert_array_equal(a, np.arange(4) + 3)
    mod.get_function("k<5, false>")((1,), (4,), (a,))
    np.testing.assert_array_equal(a, np.arange(4) - 5)


def test_a_template_block_size_with_a_barrier_and_a_race_check():
    src = r"""
template <int BLOCK>
__global__ void rev(int *a)
{
    __shared__ int s[BLOCK];
    s[threadIdx.x] = a[threadIdx.x];
    a[threadIdx.x] = s[BLOCK - 1 - threadIdx.x];
}
"""
    k = simcore.RawModule(code=src, name_expressions=("rev<64>",)).get_function("rev<64>")
    with pytest.raises(simcore.KernelFault) as info:
        k((1,), (64,), (np.arange(64, dtype=np.int32),))
    assert info.value.kind == "race"
    assert info.value.line == 6           # the lines the student wrote, inside the template
    assert sorted(info.value.report["lines"]) == [6, 7]


def test_cooperative_groups_tile_size_as_a_template_parameter():
    src = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <int TILE>
__global__ void tile_sum(const int *in, int *out)
{
    cg::thread_block_tile<TILE> t = cg::tiled_partition<TILE>(cg::this_thread_block());
    out[threadIdx.x] = cg::reduce(t, in[threadIdx.x], cg::plus<int>());
}
"""
    mod = simcore.RawModule(code=src, name_expressions=("tile_sum<8>", "tile_sum<32>"))
    x = np.random.default_rng(0).integers(-9, 9, 64).astype(np.int32)
    for tile in (8, 32):
        out = np.zeros(64, np.int32)
        mod.get_function(f"tile_sum<{tile}>")((1,), (64,), (x, out))
        np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, tile).sum(1), tile))


@pytest.mark.parametrize("src,names,words,line", [
    (SCALE.replace("twice<T>(tile", "twice(tile"), ("reverse_twice<32, float>",),
     "template arguments written out", 15),
    ("template <typename T> struct box { T v; };\n__global__ void k(int *a) { }", (), "class templates", 1),
    ("template <int N> __global__ void k(int *a) { a[0] = N + undeclared; }", ("k<1>",), "'undeclared'", 1),
    ("template <int N> __global__ void k(int *a) { }", ("q<1>",), "does not name an instance", None),
    ("template <int N> __global__ void k(int *a) { }", ("k<1, 2>",), "takes 1 template argument", 1),
    ("template <float F> __global__ void k(int *a) { }", ("k<1>",), "template parameter 'float F'", 1),
])
def test_unsupported_or_wrong_templates_are_named(src, names, words, line):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src, name_expressions=names)
    assert words in str(info.value)
    assert info.value.line == line


def test_name_expressions_must_be_strings():
    with pytest.raises(simcore.CompileError, match="not a string"):
        simcore.RawModule(code=SCALE, name_expressions=(256,))


def test_errors_inside_an_instance_point_at_the_template_lines():
    src = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <int TILE>
__global__ void k(int *out)
{
    cg::thread_block_tile<TILE> t = cg::tiled_partition<TILE>(cg::this_thread_block());
    out[threadIdx.x] = t.thread_rank();
}
"""
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src, name_expressions=("k<3>",))
    assert info.value.line == 8 and "thread_block_tile<(3)>" in str(info.value)
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src.replace("out[threadIdx.x] =", "goto end; end: out[threadIdx.x] ="),
                          name_expressions=("k<4>",))
    assert info.value.line == 9 and info.value.construct == "goto"


def test_launch_bounds_on_a_template_kernel():
    src = "template <int N> __global__ void __launch_bounds__(256) k(int *a) { a[threadIdx.x] = N; }"
    a = np.zeros(8, np.int32)
    simcore.RawModule(code=src, name_expressions=("k<2>",)).get_function("k<2>")((1,), (8,), (a,))
    assert (a == 2).all()
