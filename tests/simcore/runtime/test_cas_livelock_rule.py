"""The livelock rule of atomicCAS sites (runtime/livelock.py) calls a site livelocked only when
nothing outside its failing lanes can end the streak: a CAS that waits for other threads'
progress, however long, is legal and runs to its end; a duplicated CAS is still caught."""
import numpy as np
import pytest

import simcore

WAIT_FOR_TOTAL = r'''
extern "C" __global__ void k(int *c, int *out, int K) {
    int total = (blockDim.x - 32) * K;
    if (threadIdx.x == 0) {
        while (atomicCAS(c, total, -1) != total) { }
        out[0] = 1;
    }
    if (threadIdx.x >= 32) {
        for (int i = 0; i < K; i++) atomicAdd(c, 1);
    }
}
'''


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial", "round_robin", "random"])
def test_a_cas_that_waits_for_a_counter_many_threads_increment_is_no_livelock(schedule):
    """Thread 0's CAS fails 96 * K times while the value moves: the other threads' progress moves
    it, and once they are done the CAS succeeds."""
    K = 2000
    c, out = np.zeros(1, np.int32), np.zeros(1, np.int32)
    simcore.RawKernel(WAIT_FOR_TOTAL, "k")((1,), (128,), (c, out, np.int32(K)), schedule=schedule)
    assert c[0] == -1 and out[0] == 1


HASH_INSERT = r'''
extern "C" __global__ void insert(int *slots, int key, int mask) {
    if (threadIdx.x != 0) return;
    int slot = (key * 0) & mask;                    // hashes to slot 0, the start of a long chain
    while (true) {
        int prev = atomicCAS(&slots[slot], -1, key);
        if (prev == -1 || prev == key) break;
        slot = (slot + 1) & mask;
    }
}
'''


def test_a_long_linear_probe_of_a_hash_table_is_no_livelock():
    """One thread's CAS fails at each of 1,300 occupied slots, each holding another key; it
    compares with the empty marker at a new address each time: nothing there loops."""
    slots = np.full(2048, -1, np.int32)
    slots[:1300] = np.arange(1000, 2300, dtype=np.int32)
    for schedule in ("lockstep", "round_robin"):
        table = slots.copy()
        simcore.RawKernel(HASH_INSERT, "insert")((1,), (32,), (table, np.int32(7), np.int32(2047)),
                                                schedule=schedule)
        assert table[1300] == 7 and (table[:1300] == slots[:1300]).all()


DUPLICATED_CAS = r"""
extern "C" __global__ void count(int *counter)
{
    int old = *counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(counter, assumed, assumed + 1);
        old = atomicCAS(counter, assumed, assumed + 1);
    } while (assumed != old);
}
"""


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "random"])
def test_a_duplicated_atomic_cas_is_a_livelock(schedule):
    counter = np.zeros(1, np.int32)
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(DUPLICATED_CAS, "count")((2,), (64,), (counter,), schedule=schedule)
    assert "atomicCAS that can never succeed" in str(info.value)
    assert info.value.report["line"] == 8


def test_a_duplicated_cas_while_other_warps_have_not_run_yet_is_no_certain_verdict():
    """adversarial runs one warp ahead: the other warps, still at the kernel's start, could (as far
    as the simulator knows) change what the failing lanes see, so only the time limit stops the
    launch, and it says it is no verdict (the other schedules catch this loop)."""
    counter = np.zeros(1, np.int32)
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(DUPLICATED_CAS, "count")((2,), (64,), (counter,), schedule="adversarial",
                                                   time_limit=2)
    assert info.value.kind == "time_limit" and "no verdict" in str(info.value)


DUPLICATED_CAS_WITH_A_WAITER = DUPLICATED_CAS.replace(
    "    int old = *counter, assumed;",
    "    if (threadIdx.x == 0 && blockIdx.x == 0) { while (atomicAdd(counter + 1, 0) == 0) { } return; }\n"
    "    int old = *counter, assumed;")


def test_a_cas_loop_is_not_called_livelocked_while_another_thread_could_still_act():
    """A thread spinning on another flag could (as far as the simulator knows) still change the
    course of the failing lanes: no certain verdict; the time limit stops it and says so."""
    counter = np.zeros(2, np.int32)
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(DUPLICATED_CAS_WITH_A_WAITER, "count")((1,), (64,), (counter,),
                                                                schedule="round_robin", time_limit=2)
    assert info.value.kind == "time_limit"
    assert "no verdict" in str(info.value)
