"""Which operation an undefined-value report names as the origin (simcore/checks/report.py,
the shuffle taint of simcore/sync.py).

The origin must be the shuffle whose undefined result flowed into the value that was stored
or used, not merely the first shuffle of the launch that read a missing lane: a tail warp that
reads past its last lane and discards what it read behind a guard (the ex04 solution's pattern)
is correct code, and the report must not point there.
"""
import numpy as np
import pytest

import simcore
from launch_checks import fault_of

GUARDED_THEN_UNGUARDED = r"""
extern "C" __global__ void tail(const int *in, int *out)
{
    int t = threadIdx.x;
    int lane = t % 32;
    int lanes_here = min(32, (int)blockDim.x - (t / 32) * 32);
    unsigned mask = __ballot_sync(0xffffffff, 1);
    int v = in[t];
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < lanes_here)
            v += other;
    }
    int next = __shfl_down_sync(mask, v, 1);
    out[t] = next;
}
"""
GUARDED_LINE, UNGUARDED_LINE = 10, 14


def kernel(src, name):
    return simcore.RawModule(code=src).get_function(name)


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
def test_the_origin_is_the_shuffle_whose_result_was_stored_not_an_earlier_discarded_one(schedule):
    f = fault_of(kernel(GUARDED_THEN_UNGUARDED, "tail"), (1,), (48,),
                 (np.arange(48, dtype=np.int32), np.zeros(48, np.int32)), schedule=schedule)
    assert f.kind == "undefined_value"
    text = str(f)
    assert f"__shfl_down_sync() on line {UNGUARDED_LINE}" in text, text
    assert f"on line {GUARDED_LINE}" not in text, text
    lines = [loc["line"] for loc in f.report["locations"] if loc["what"] == "where it became undefined"]
    assert lines == [UNGUARDED_LINE], f.report["locations"]


MIXED = r"""
extern "C" __global__ void mixed(const int *in, int *out)
{
    int t = threadIdx.x;
    unsigned mask = __ballot_sync(0xffffffff, 1);
    int a = __shfl_xor_sync(mask, in[t], 16);
    int b = __shfl_down_sync(mask, in[t], 8);
    int r = b;
    if (t % 32 < 4)
        r = a;
    out[t] = r;
}
"""


def test_a_value_from_one_of_two_undefined_shuffles_names_the_one_it_came_from():
    # block of 20: the xor (line 6) reads missing lanes 20..31 for lanes 4..15, but only lanes
    # 0..3 store its result (their partners 16..19 exist); the shift by 8 (line 7) reads missing
    # lanes for lanes 12..19, and they store it
    f = fault_of(kernel(MIXED, "mixed"), (1,), (20,),
                 (np.arange(20, dtype=np.int32), np.zeros(20, np.int32)))
    assert f.kind == "undefined_value"
    assert "__shfl_down_sync() on line 7" in str(f), str(f)
    assert "line 6" not in str(f), str(f)


SELECT = r"""
extern "C" __global__ void pick(const int *in, int *out)
{
    int t = threadIdx.x;
    int a = __shfl_down_sync(0xffffffff, in[t], 16);
    int b = in[t];
    out[t] = (t + 16 < 20) ? a : b;
}
"""


def test_a_select_whose_undefined_arm_is_not_taken_is_no_fault():
    # block of 20: lanes 4..15 read missing lanes 20..31 into `a`, but they select `b`; a
    # select is one value per lane, not both arms
    x = np.arange(20, dtype=np.int32)
    out = np.zeros(20, np.int32)
    kernel(SELECT, "pick")((1,), (20,), (x, out))
    np.testing.assert_array_equal(out, np.where(np.arange(20) < 4, x + 16, x))


def test_a_select_that_takes_its_undefined_arm_is_still_a_fault():
    f = fault_of(kernel(SELECT.replace("(t + 16 < 20)", "(t < 8)"), "pick"), (1,), (20,),
                 (np.arange(20, dtype=np.int32), np.zeros(20, np.int32)))
    assert f.kind == "undefined_value"
    assert "4 thread(s) stored an undefined value" in str(f), str(f)
