"""The warp-reduce (__reduce_*_sync, redux.sync) and match (__match_*_sync, match.sync)
intrinsics: results bit-exact with CUDA's definitions, mask rules as for the shuffles,
undefined values followed, overloads as CUDA declares them."""
import functools
import operator

import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean

SCHEDULES = ("lockstep", "round_robin", "adversarial", "random")
MODELS = ("independent", "stack")


def kernel(body, params="const int* in, int* out"):
    return simcore.RawKernel(f'extern "C" __global__ void k({params}) {{ int t = threadIdx.x; {body} }}', "k")


def warps(a):
    return a.reshape(-1, 32)


def wrap32(x):
    return (int(x) + 2**31) % 2**32 - 2**31


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_reduce_int_and_unsigned_results_are_cudas(schedule):
    k = kernel("""
        int v = in[t]; unsigned u = (unsigned)v;
        out[t*9+0] = __reduce_add_sync(0xffffffffu, v);
        out[t*9+1] = __reduce_min_sync(0xffffffffu, v);
        out[t*9+2] = __reduce_max_sync(0xffffffffu, v);
        out[t*9+3] = (int)__reduce_add_sync(0xffffffffu, u);
        out[t*9+4] = (int)__reduce_min_sync(0xffffffffu, u);
        out[t*9+5] = (int)__reduce_max_sync(0xffffffffu, u);
        out[t*9+6] = (int)__reduce_and_sync(0xffffffffu, u | 0x10u);
        out[t*9+7] = (int)__reduce_or_sync(0xffffffffu, u);
        out[t*9+8] = (int)__reduce_xor_sync(0xffffffffu, u);""")
    rng = np.random.default_rng(7)
    x = rng.integers(-2**31, 2**31, 96, dtype=np.int64).astype(np.int32)   # sums overflow 32 bits
    out = np.zeros(96 * 9, np.int32)
    run_clean(k, (1,), (96,), (x, out), schedule=schedule)
    got = out.reshape(96, 9)
    for w, v in enumerate(warps(x)):
        u = [int(a) for a in v.view(np.uint32)]
        expect = [wrap32(sum(int(a) for a in v)), v.min(), v.max(), wrap32(sum(u)),
                  wrap32(min(u)), wrap32(max(u)), wrap32(functools.reduce(operator.and_, [a | 0x10 for a in u])),
                  wrap32(functools.reduce(operator.or_, u)), wrap32(functools.reduce(operator.xor, u))]
        assert (got[w * 32:(w + 1) * 32] == np.array(expect, np.int64).astype(np.int32)).all()


def test_unsigned_min_is_not_the_signed_min():
    k = kernel("out[t] = (int)__reduce_min_sync(0xffffffffu, (unsigned)in[t]);"
               "out[32 + t] = __reduce_min_sync(0xffffffffu, in[t]);")
    x = np.arange(32, dtype=np.int32) - 3          # -3 is 0xfffffffd unsigned
    out = np.zeros(64, np.int32)
    run_clean(k, (1,), (32,), (x, out))
    assert (out[:32] == 0).all() and (out[32:] == -3).all()


def test_short_and_char_promote_to_the_int_overload():
    k = kernel("short s = (short)in[t]; char c = (char)1; out[t] = __reduce_add_sync(0xffffffffu, s) "
               "+ __reduce_max_sync(0xffffffffu, c);")
    x = -np.arange(32, dtype=np.int32)
    out = np.zeros(32, np.int32)
    run_clean(k, (1,), (32,), (x, out))
    assert (out == -sum(range(32)) + 1).all()


@pytest.mark.parametrize("arg", ["(float)in[t]", "(long long)in[t]", "(double)in[t]"])
def test_ambiguous_reduce_overload_is_a_compile_error(arg):
    with pytest.raises(simcore.CompileError, match="more than one instance"):
        kernel(f"out[t] = __reduce_add_sync(0xffffffffu, {arg});")


def test_bitwise_reduce_converts_to_unsigned():
    k = kernel("out[t] = (int)__reduce_or_sync(0xffffffffu, in[t]);")    # int -> unsigned: no ambiguity
    x = (1 << (np.arange(32) % 31)).astype(np.int32)
    out = np.zeros(32, np.int32)
    run_clean(k, (1,), (32,), (x, out))
    assert (out == 0x7fffffff).all()


@pytest.mark.parametrize("ctype", ["int", "unsigned", "long long", "unsigned long long", "float", "double"])
@pytest.mark.parametrize("schedule", ("lockstep", "adversarial"))
def test_match_any_groups_lanes_by_value(ctype, schedule):
    k = kernel(f"{ctype} v = ({ctype})(in[t] % 5); out[t] = (int)__match_any_sync(0xffffffffu, v);")
    rng = np.random.default_rng(3)
    x = rng.integers(0, 1000, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    run_clean(k, (1,), (64,), (x, out), schedule=schedule)
    for w, v in enumerate(warps(x % 5)):
        for lane in range(32):
            expect = sum(1 << j for j in range(32) if v[j] == v[lane])
            assert out[w * 32 + lane] == wrap32(expect)


def test_match_compares_bits_not_values():
    """CUDA's header matches a float by __float_as_uint: -0.0 and 0.0 differ, one NaN matches itself."""
    k = kernel("out[t] = (int)__match_any_sync(0xffffffffu, f[t]);", "const float* f, int* out")
    f = np.zeros(32, np.float32)
    f[1::2] = -0.0
    f[30:] = np.float32("nan")
    out = np.zeros(32, np.int32)
    run_clean(k, (1,), (32,), (f, out))
    even = sum(1 << j for j in range(0, 30, 2))
    odd = sum(1 << j for j in range(1, 30, 2))
    assert (out[0:30:2] == even).all() and (out[1:30:2] == odd).all()
    assert (out[30:] == wrap32(3 << 30)).all()


@pytest.mark.parametrize("ctype", ["int", "long long", "double"])
def test_match_all_writes_pred(ctype):
    k = kernel(f"int p = 7; {ctype} v = ({ctype})in[t]; unsigned m = __match_all_sync(0xffffffffu, v, &p);"
               "out[2*t] = (int)m; out[2*t+1] = p;")
    x = np.zeros(64, np.int32)
    x[40] = 1                                          # warp 1 differs in one lane
    out = np.zeros(128, np.int32)
    run_clean(k, (1,), (64,), (x, out))
    got = out.reshape(64, 2)
    assert (got[:32, 0] == -1).all() and (got[:32, 1] == 1).all()
    assert (got[32:] == 0).all()


def test_match_all_pred_through_a_pointer_to_memory():
    k = kernel("__match_all_sync(0xffffu << (t & 16), in[t] >> 4, &out[t]);")
    x = np.arange(32, dtype=np.int32)                   # lanes 0-15 hold 0, lanes 16-31 hold 1
    out = np.full(32, 9, np.int32)
    run_clean(k, (1,), (32,), (x, out))
    assert (out == 1).all()


def test_match_all_pred_must_be_an_int_pointer():
    with pytest.raises(simcore.CompileError, match="int \\*"):
        kernel("unsigned p; __match_all_sync(0xffffffffu, in[t], &p); out[t] = p;")


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_disjoint_masks_in_divergent_code_are_legal(schedule, model):
    k = kernel("int v = in[t]; int r; if ((t & 31) < 12) r = __reduce_add_sync(0x00000fffu, v); "
               "else r = (int)__match_any_sync(0xfffff000u, v & 1); out[t] = r;")
    x = np.arange(64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    run_clean(k, (1,), (64,), (x, out), schedule=schedule, model=model)
    for w in range(2):
        lo = x[w * 32: w * 32 + 12]
        assert (out[w * 32: w * 32 + 12] == lo.sum()).all()
        odd = sum(1 << j for j in range(13, 32, 2))
        even = sum(1 << j for j in range(12, 32, 2))
        assert (out[w * 32 + 12: w * 32 + 32: 2] == even).all()
        assert (out[w * 32 + 13: w * 32 + 32: 2] == wrap32(odd)).all()


@pytest.mark.parametrize("call", ["__reduce_add_sync(0xffffffffu, in[t])", "(int)__match_any_sync(0xffffffffu, in[t])",
                                  "(int)__reduce_xor_sync(0xffffffffu, (unsigned)in[t])"])
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_lanes_of_the_mask_that_do_not_take_part(call, schedule, model):
    k = kernel(f"int r = 0; if ((t & 31) < 16) r = {call}; out[t] = r;")
    f = fault_of(k, (1,), (32,), (np.arange(32, dtype=np.int32), np.zeros(32, np.int32)),
                 schedule=schedule, model=model)
    assert f.kind == "invalid_mask"
    assert "do not take part" in f.report["explanation"] or "do not take part" in str(f)


@pytest.mark.parametrize("call", ["__reduce_max_sync(0x0000ffffu, in[t])", "(int)__match_any_sync(0x0000ffffu, in[t])"])
def test_the_caller_must_be_in_its_mask(call):
    k = kernel(f"out[t] = {call};")
    f = fault_of(k, (1,), (32,), (np.arange(32, dtype=np.int32), np.zeros(32, np.int32)))
    assert f.kind == "invalid_mask" and "does not include their own lane" in str(f)


def test_two_intrinsics_under_one_mask_are_invalid():
    k = kernel("int r; if ((t & 31) < 16) r = __reduce_add_sync(0xffffffffu, in[t]); "
               "else r = __shfl_sync(0xffffffffu, in[t], 0); out[t] = r;")
    f = fault_of(k, (1,), (32,), (np.arange(32, dtype=np.int32), np.zeros(32, np.int32)))
    assert f.kind == "invalid_mask" and "different warp intrinsics" in str(f)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_exited_lanes_are_not_waited_for_nor_counted(schedule):
    k = kernel("if ((t & 31) >= 20) return; out[t] = __reduce_add_sync(0xffffffffu, in[t]) "
               "+ 1000 * __popc(__match_any_sync(0xffffffffu, in[t] & 1));")
    x = np.arange(64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    k((1,), (64,), (x, out), schedule=schedule)
    for w in range(2):
        assert (out[w * 32: w * 32 + 20] == x[w * 32: w * 32 + 20].sum() + 10000).all()
        assert (out[w * 32 + 20: w * 32 + 32] == 0).all()


def test_an_undefined_value_in_a_reduction_is_reported_when_stored():
    k = kernel("int z; if (t == 3) z = 1; out[t] = __reduce_add_sync(0xffffffffu, z);")
    f = fault_of(k, (1,), (32,), (np.zeros(32, np.int32), np.zeros(32, np.int32)))
    assert f.kind in ("undefined_value", "uninitialized")


def test_an_undefined_value_whose_reduction_nobody_uses_is_legal():
    k = kernel("int z; if (t == 3) z = 1; unsigned m = __match_any_sync(0xffffffffu, z); out[t] = 1;")
    out = np.zeros(32, np.int32)
    k((1,), (32,), (np.zeros(32, np.int32), out))
    assert (out == 1).all()


def test_cg_reduce_agrees_with_reduce_add_sync():
    src = r'''
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(const int* in, int* out)
{
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
    int t = threadIdx.x;
    out[2 * t] = cg::reduce(w, in[t], cg::plus<int>());
    out[2 * t + 1] = __reduce_add_sync(0xffffffffu, in[t]);
}
'''
    k = simcore.RawKernel(src, "k")
    x = np.random.default_rng(5).integers(-2**31, 2**31, 128, dtype=np.int64).astype(np.int32)
    out = np.zeros(256, np.int32)
    run_clean(k, (1,), (128,), (x, out))
    assert (out[0::2] == out[1::2]).all()
