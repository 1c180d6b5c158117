"""The fix a race report gives in a kernel that waits on a flag or lock and has no fence at all.

A wait (a volatile load or an atomic whose value decides whether its loop goes on) orders only
the flag itself; the data written before the flag, or inside a critical section, is handed over
only by a fence on each side. The usual fix, "put __syncthreads() between line A and line B",
sends a student to a divergent barrier when the writer is `if (t == 0)` and the reader
`if (t == 32)`: the report names the fences and the wait's line first (docs/semantics.md,
"Fences and flags")."""
import numpy as np
import pytest

import simcore
from launch_checks import fault_of

CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="random", seed=3),
           dict(schedule="round_robin")]
IDS = lambda c: "-".join(map(str, c.values()))   # noqa: E731

# in one block: thread 0 fills a tile, sets a flag; thread 32 waits for the flag, reads the tile
IN_BLOCK = r"""
extern "C" __global__ void k(const int* in, int* out)
{
    __shared__ int tile[32];
    __shared__ volatile int ready;
    int t = threadIdx.x;
    if (t == 0) ready = 0;
    __syncthreads();
    if (t == 0) {
        for (int i = 0; i < 32; i++) tile[i] = in[i] * 2;
        ready = 1;
    }
    if (t == 32) {
        while (WAIT) { }
        int sum = 0;
        for (int i = 0; i < 32; i++) sum += tile[i];
        out[blockIdx.x] = sum;
    }
}
"""
WAITS = {"volatile": "ready == 0", "atomic": "atomicAdd((int*)&ready, 0) == 0"}

# between blocks: a ticket lock, its critical section a plain read-modify-write
TICKET = r"""
extern "C" __global__ void k(const int* in, int* next, int* serving, int* total)
{
    if (threadIdx.x != 0) return;
    int my = atomicAdd(next, 1);
    while (atomicAdd(serving, 0) != my) { }
    *total += in[blockIdx.x];
    atomicAdd(serving, 1);
}
"""

PLAIN = r"""
extern "C" __global__ void k(const int* in, int* out)
{
    __shared__ int tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = tile[63 - threadIdx.x];
}
"""


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@pytest.mark.parametrize("wait", sorted(WAITS))
def test_a_flag_hand_off_in_a_block_without_fences_is_told_to_fence_both_sides(wait, cfg):
    k = simcore.RawModule(code=IN_BLOCK.replace("WAIT", WAITS[wait])).get_function("k")
    f = fault_of(k, (1,), (64,), (np.arange(32, dtype=np.int32), np.zeros(1, np.int32)), **cfg)
    assert f.report["kind"] == "race"
    fix = f.report["fix"]
    # the fences first, naming the wait's line, the write's and the read's
    assert fix.startswith("if these threads hand the data over through the flag or lock at line 14")
    assert "__threadfence_block()" in fix and "after line 10 and before the flag is set" in fix and "before line 16" in fix
    assert fix.index("__threadfence_block()") < fix.index("__syncthreads()")
    assert "never inside a branch that some threads skip" in fix
    assert "it has no fence" in f.report["explanation"]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_a_ticket_lock_between_blocks_without_fences_is_told_to_use_threadfence(cfg):
    k = simcore.RawModule(code=TICKET).get_function("k")
    z = lambda: np.zeros(1, np.int32)   # noqa: E731
    f = fault_of(k, (6,), (32,), (np.arange(6, dtype=np.int32), z(), z(), z()), **cfg)
    assert f.report["kind"] == "race" and "between blocks" in f.report["title"]
    fix = f.report["fix"]
    # the poll (line 6) is the wait, not the ticket taken at line 5
    assert fix.startswith("if these threads hand the data over through the flag or lock at line 6,")
    assert "__threadfence()" in fix and "__threadfence_block()" not in fix
    assert fix.endswith("the end of a launch orders every block.")


def test_a_race_in_a_kernel_that_waits_for_nothing_keeps_the_barrier_fix():
    k = simcore.RawModule(code=PLAIN).get_function("k")
    f = fault_of(k, (1,), (64,), (np.arange(64, dtype=np.int32), np.zeros(64, np.int32)))
    assert f.report["fix"].startswith("put __syncthreads() between line 5 and line 6")
    assert "fence" not in f.report["fix"] and "fence" not in f.report["explanation"]


def test_a_kernel_that_fences_gets_the_hand_off_text_of_the_release_acquire_check_not_this_one():
    # the writer fences, the reader does not: the release/acquire check words that case itself
    src = IN_BLOCK.replace("WAIT", WAITS["volatile"]).replace("ready = 1;", "__threadfence_block(); ready = 1;")
    k = simcore.RawModule(code=src).get_function("k")
    f = fault_of(k, (1,), (64,), (np.arange(32, dtype=np.int32), np.zeros(1, np.int32)))
    assert "it has no fence" not in f.report["explanation"]
    assert "the hand-off has no fence after its read" in f.report["title"]


CAS_MAX_NO_BARRIER = r"""
__device__ void atomic_max_float(float* addr, float v)
{
    unsigned int* a = (unsigned int*)addr;
    unsigned int old = *a;
    while (__int_as_float((int)old) < v) {
        unsigned int prev = atomicCAS(a, old, (unsigned int)__float_as_int(v));
        if (prev == old) break;
        old = prev;
    }
}
extern "C" __global__ void k(const float* x, float* out)
{
    __shared__ float best;
    if (threadIdx.x == 0) best = -1e30f;
    __syncthreads();
    atomic_max_float(&best, x[blockIdx.x * blockDim.x + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = best;
}
"""


def test_an_atomiccas_update_loop_is_no_wait_and_keeps_the_barrier_fix():
    # the CAS loop retries until its own CAS lands: it waits for no flag, so the fix is the
    # barrier after the loops, not fences
    k = simcore.RawModule(code=CAS_MAX_NO_BARRIER).get_function("k")
    x = np.random.default_rng(1).random(96).astype(np.float32)
    f = fault_of(k, (1,), (96,), (x, np.zeros(1, np.float32)))
    assert f.report["kind"] == "race"
    assert "fence" not in f.report["fix"] and "flag" not in f.report["explanation"]
    assert "__syncthreads()" in f.report["fix"]
