"""One lane's access takes a path of its own (Memory's one-lane load and store, the race
detector's integer rule in checks/race_rule.py): it must give exactly the verdicts, reports,
outputs and steps of the vectorised path, on races it must find and on legal code it must pass."""
import warnings

import numpy as np
import pytest

import simcore
from simcore.runtime.memory import Memory
import simcore.runtime.runner
from simcore.checks import Plugin, RaceDetector
from simcore.plugins import REGISTERED

# the start of the lone loops over shared memory below: 64 words, each thread's written, a barrier
SHARED_64_FILLED = r"""
__global__ void k(int *out, int n)
{
    __shared__ unsigned s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    unsigned total = 0;"""

# Each kernel: (source, kernel name, grid, block, argument maker). Lone lanes (a thread alone in
# its branch, or a block of one thread) read and write shared and global memory.
KERNELS = {
    "a lone writer against a reader of the same interval (shared)": (r"""
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    if (t == 0) s[5] = 9;
    if (t == 5) out[0] = s[5];
}""", (1,), (64,), lambda: [np.zeros(1, np.int32)]),
    "a lone reader after a barrier (shared, legal)": (r"""
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 2;
    __syncthreads();
    if (t == 0) { int total = 0; for (int i = 0; i < 64; i++) total += s[i]; out[0] = total; }
}""", (1,), (64,), lambda: [np.zeros(1, np.int32)]),
    "a lone thread's read-modify-write loop (global, legal)": (r"""
__global__ void k(unsigned *a, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        for (int i = 0; i < n; i++) a[i & 15] = a[i & 15] * 3u + i;
}""", (2,), (32,), lambda: [np.zeros(16, np.uint32), np.int32(200)]),
    "lone threads of two blocks on one word (global)": (r"""
__global__ void k(int *a)
{
    if (threadIdx.x == 0) a[0] = a[0] + blockIdx.x;
}""", (2,), (32,), lambda: [np.zeros(4, np.int32)]),
    "a lone reader of another lane's write, ordered by __syncwarp": (r"""
__global__ void k(int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t == 3) s[3] = 7;
    __syncwarp();
    if (t == 0) out[0] = s[3];
}""", (1,), (32,), lambda: [np.zeros(1, np.int32)]),
    "a lone reader of another lane's write, no __syncwarp": (r"""
__global__ void k(int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t == 3) s[3] = 7;
    if (t == 0) out[0] = s[3];
}""", (1,), (32,), lambda: [np.zeros(1, np.int32)]),
    "a CAS loop's plain first read by a lone lane (legal)": (r"""
__global__ void k(int *a)
{
    if (threadIdx.x == 0) {
        int old = a[0], seen;
        do { seen = old; old = atomicCAS(a, seen, seen + 1); } while (old != seen);
    }
    if (threadIdx.x == 1) atomicAdd(a + 1, 1);
}""", (2,), (32,), lambda: [np.zeros(2, np.int32)]),
    "a lone atomic against a plain write of another block": (r"""
__global__ void k(int *a)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(a, 1);
    if (threadIdx.x == 0 && blockIdx.x == 1) a[0] = 5;
}""", (2,), (32,), lambda: [np.zeros(1, np.int32)]),
    "bar.arrive: a lone producer's write after arriving (shared)": (r"""
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32) { s[t] = t; asm volatile("bar.arrive 1, 64;"); s[0] = 1; }
    else { asm volatile("bar.sync 1, 64;"); if (t == 32) out[0] = s[0]; }
}""", (1,), (64,), lambda: [np.zeros(1, np.int32)]),
    # the serial loop's own loads and stores (Memory.load_lane / store_lane inside its generated
    # loop): a race found in the middle of the loop goes the vectorised way and is reported there
    "a lone lane's loop reads a word another thread wrote in the same interval (shared)": (r"""
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    if (t == 9) s[40] = 1;
    if (t == 0) { int total = 0; for (int i = 0; i < 64; i++) total += s[i]; out[0] = total; }
}""", (1,), (64,), lambda: [np.zeros(1, np.int32)]),
    "a lone lane's loop writes a word another thread read in the same interval (global)": (r"""
__global__ void k(int *a, int *out)
{
    int t = threadIdx.x;
    if (t == 3) out[0] = a[20];
    if (t == 0) for (int i = 0; i < 32; i++) a[i] = a[i] + i;
}""", (1,), (32,), lambda: [np.zeros(32, np.int32), np.zeros(1, np.int32)]),
    "a lone lane's loop over shared memory after a barrier, every round (legal)": (r"""
__global__ void k(int *out, int rounds)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    int total = 0;
    for (int r = 0; r < rounds; r++) {
        __syncthreads();
        s[t] += 1;
        __syncthreads();
        if (t == 0) for (int i = 0; i < 64; i++) { total += s[i]; s[i] = s[i] - 1; }
        __syncthreads();
    }
    if (t == 0) out[0] = total;
}""", (1,), (64,), lambda: [np.zeros(1, np.int32), np.int32(6)]),
    "a lone read of never-written shared memory": (r"""
__global__ void k(int *out)
{
    __shared__ int s[64];
    if (threadIdx.x == 0) out[0] = s[7] > 3 ? 1 : 2;
}""", (1,), (32,), lambda: [np.zeros(1, np.int32)]),
    "a lone 8-byte access over 4-byte granules": (r"""
__global__ void k(double *d, int *i)
{
    if (threadIdx.x == 0) d[1] = d[0] + 1.0;
    if (threadIdx.x == 0) i[0] = 1;
    __syncthreads();
    if (threadIdx.x == 5) d[1] = 2.0;
}""", (1,), (32,), lambda: [np.zeros(2, np.float64), np.zeros(1, np.int32)]),
    # the serial loop's reads reuse what the first read of a site found in an interval: a write
    # another thread makes later in that interval, and the loop's own earlier reads, still count
    "a lone loop reads, at the same site, a word another thread wrote after the loop's first reads": (r"""
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int total = 0;
    for (int r = 0; r < 2; r++) {
        if (t == 0)
            for (int i = 10 - 5 * r; i < 64 - 50 * r; i++) total += s[i];
        if (t == 5) s[5] = 9;
    }
    if (t == 0) out[0] = total;
}""", (1,), (64,), lambda: [np.zeros(1, np.int32)]),
    "a lone loop reads shared memory twice in one interval, then another thread writes it (legal, then a race)": (
        SHARED_64_FILLED + r"""
    if (t == 0)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 64; i++) total += s[i];
    if (t == 9) s[3] = 1u;
    if (t == 0) out[0] = total;
}""", (1,), (64,), lambda: [np.zeros(1, np.int32), np.int32(3)]),
    # a lane's read plan takes its own re-read of a word in an interval, never one whose readers'
    # record another lane shares (thread 32 read it in between: the record names both warps)
    "lone loops of two warps read shared memory in one interval, the first again, then a writer": (
        SHARED_64_FILLED + r"""
    if (t == 0)
        for (int i = 0; i < 64; i++) total += s[i];
    if (t == 32)
        for (int i = 0; i < 64; i += 2) total += s[i];
    if (t == 0)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 64; i++) total += s[i];
    if (t == 9) s[4] = 1u;
    if (t < 33) out[t] = total;
}""", (1,), (64,), lambda: [np.zeros(33, np.int32), np.int32(2)]),
    # a launch too large for the release/acquire clocks (over 2048 threads): the epochs-only rule
    # holds until the first fence, which ends it; the loop's read plans must go with it
    "a lone loop reads shared memory around a fence in a launch of 4096 threads, then a writer": (r"""
__global__ void k(int *out, int n)
{
    __shared__ int s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int total = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < 64; i++) total += s[i];
            __threadfence();
            atomicAdd(&out[1], 1);
        }
    if (blockIdx.x == 0 && threadIdx.x == 7) s[3] = 1;
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = total;
}""", (16,), (256,), lambda: [np.zeros(2, np.int32), np.int32(3)]),
}


def outcome(name, schedule):
    src, grid, block, make = KERNELS[name]
    k = simcore.RawKernel(src, "k")
    args = make()
    fault = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            k(grid, block, args, schedule=schedule)
        except simcore.KernelFault as e:
            fault = (type(e).__name__, str(e), repr(e.report))
    return fault, [a.tolist() for a in args if isinstance(a, np.ndarray)], k.last_launch.steps


def vectorised_only(monkeypatch):
    """Send every one-lane access the general way (the path the fast one must equal), the serial
    loop's scalar loads and stores too."""
    monkeypatch.setattr(Memory, "_lone_access", lambda self, *a: None)
    monkeypatch.setattr(RaceDetector, "on_lane_access", Plugin.on_lane_access)   # on_memory_access's

    def load_lane(self, addr, dtype, L, slot, site, want_taint, check_align=True):
        if not want_taint:
            return self.load(addr, dtype, L, site, False, check_align)[0]
        vals, taint = self.load(addr, dtype, L, site, True, check_align)
        return vals[0], (taint[0] if isinstance(taint, np.ndarray) else taint)

    def store_lane(self, addr, value, dtype, L, slot, site, taint, check_align=True):
        self.store(addr, value, dtype, L, site, taint, check_align)
    monkeypatch.setattr(Memory, "load_lane", load_lane)
    monkeypatch.setattr(Memory, "store_lane", store_lane)


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_one_lane_accesses_get_the_vectorised_paths_verdict_report_and_steps(name, schedule, monkeypatch):
    fast = outcome(name, schedule)
    with monkeypatch.context() as m:
        vectorised_only(m)
        slow = outcome(name, schedule)
    assert fast == slow


def test_a_lone_writer_racing_with_a_reader_is_reported_on_the_element():
    fault, _, _ = outcome("a lone writer against a reader of the same interval (shared)", "lockstep")
    assert fault is not None and "race" in fault[1].lower() and "s[5]" in fault[1]


def test_a_lone_threads_legal_loops_pass():
    for name in ("a lone reader after a barrier (shared, legal)",
                 "a lone thread's read-modify-write loop (global, legal)",
                 "a CAS loop's plain first read by a lone lane (legal)"):
        fault, _, _ = outcome(name, "lockstep")
        assert fault is None, (name, fault)


def test_a_plugin_that_watches_accesses_sees_one_lane_accesses_as_one_element_arrays(monkeypatch):
    seen = []

    class Watcher(Plugin):
        @classmethod
        def wanted(cls, options):
            return True

        def on_memory_access(self, region, offsets, size, kind, lanes, site):
            seen.append((region.name, offsets.dtype.name, offsets.tolist(), size, kind))

    monkeypatch.setattr(simcore.runtime.runner, "REGISTERED", REGISTERED + (Watcher,))
    src = r"""
__global__ void k(int *a)
{
    if (threadIdx.x == 0) a[3] = a[2] + 1;
}"""
    simcore.RawKernel(src, "k")((1,), (32,), (np.zeros(4, np.int32),))
    assert seen == [("a", "int64", [8], 4, "read"), ("a", "int64", [12], 4, "write")]
