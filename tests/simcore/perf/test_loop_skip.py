"""An estimate's sample skips the repeated iterations of counted loops (simcore/perf/loop_skip.py)
and counts what simulating every iteration counts.

Each kernel is sampled twice, with LoopSkip and without it: every counter of every sampled block
(sectors, lines, instructions, L1 hits, rounds, shared wavefronts...) and the atomics must be the
same, and so must the estimate; where the loop is one the skipper may skip, it must have skipped
most of it (that is where the estimate's time goes), and where it may not (the data steer the
loop, a barrier, a break), it must skip nothing."""
import dataclasses
import sys

import numpy as np
import pytest

import simcore
from simcore.launch import marshal
from simcore.perf import sampling
from simcore.perf.loop_skip import LoopSkip, skippable_loops
from simcore.perf.sampling import run_sample


def kernel(src, name):
    return simcore.RawModule(code=src, backend="sim").get_function(name)


N = 20011                   # prime: every grid's last iterations are partial


def _inputs(rng, n=N):
    return [rng.random(8 * n, dtype=np.float32), np.zeros(8 * n, np.float32), np.int32(n)]


COPY = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[i];
}
"""
# a float sum the loop carries (not moved by the skip), then shuffles and an atomic after it
DOT = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        s += in[i] * in[i + n];
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0)
        atomicAdd(out, s);
}
"""
# one row per thread: a sector serves 8 iterations, so the counts repeat every 8 (with an L1)
ROW_MAX = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int cols = n / 64;
    float m = -1.0f;
    for (int j = 0; j < cols; j++)
        m = fmaxf(m, in[row * cols + j]);
    out[row] = m;
}
"""
# two counters, one of them a pointer offset the test never reads
TWO_COUNTERS = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, s = blockDim.x * gridDim.x;
    const float *p = in + 2 * t;
    for (int i = t; i < n; i += s, p += 2 * s)
        out[i] = p[0] + p[1];
}
"""
# downwards, with >=
DESCENDING = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int i = n - 1 - (int)(blockIdx.x * blockDim.x + threadIdx.x); i >= 0; i -= blockDim.x * gridDim.x)
        out[i] = in[i] * 3.0f;
}
"""
# an unsigned counter against an unsigned bound, and a != test
UNSIGNED_AND_NOT_EQUAL = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    unsigned un = (unsigned)n;
    for (unsigned i = threadIdx.x; i < un; i += blockDim.x)
        out[i] = in[i];
    int stop = threadIdx.x + 32 * 400;
    for (int j = threadIdx.x; j != stop; j += 32)
        out[j + n] = in[j];
}
"""
# a 12-byte stride: the lanes' sectors repeat only every few iterations
STRIDE_12 = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[3 * i] + in[3 * i + 2];
}
"""
# nested counted loops, a shared-memory accumulator, a per-block trip count
NESTED = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    __shared__ float acc[256];
    acc[threadIdx.x] = 0.0f;
    int rows = 3 + blockIdx.x % 4;
    for (int r = 0; r < rows; r++)
        for (int c = threadIdx.x; c < n; c += blockDim.x)
            acc[threadIdx.x] += in[r * 7 + c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc[threadIdx.x];
}
"""
# a branch on the counter: taken every 8th iteration (65 = 1 mod 8), or until halfway; three
# quiet iterations in a row looked like a period of one
COUNTER_BRANCHES = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    float acc = 0.0f;
    for (unsigned i = threadIdx.x % 2; i < (unsigned)n; i += 65) {
        if (i % 8 == 0)
            acc += in[i + 35];
        if (i < (unsigned)n / 2)
            out[i] = acc;
    }
    out[n + threadIdx.x] = acc;
}
"""
# one branch on the counter alone (the random kernel of seed 110 that found it)
COUNTER_PERIOD_8 = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    float acc = 0.0f;
    for (unsigned i = threadIdx.x % 2; i < (unsigned)(n - n / 5); i += 65)
        if (i % 8 == 0)
            acc += in[i + 35];
    out[n + threadIdx.x] = acc;
}
"""
# an address that wraps around (%): not a line that moves by a constant
WRAPPING = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    float s = 0.0f;
    for (int c = threadIdx.x; c < n; c += blockDim.x)
        s += in[(c * 7) % n];
    out[threadIdx.x] = s;
}
"""
# atomics in the loop: shared float adds (a compare-and-swap chain per word), integer increments,
# a native atomicMax; global adds to one address per warp and to one per thread
ATOMICS = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    __shared__ float words[32];
    __shared__ unsigned int counts[32];
    __shared__ int top[32];
    int t = threadIdx.x;
    if (t < 32) { words[t] = 0.0f; counts[t] = 0; top[t] = 0; }
    __syncthreads();
    for (int r = 0; r < n / 64; r++) {
        atomicAdd(&words[(t / 32) % 8], 1.0f);
        atomicAdd(&counts[t % 4], 1u);
        atomicMax(&top[t % 32], r);
        atomicAdd(&out[t / 32], 1.0f);
        atomicAdd(&out[64 + t], 2.0f);
    }
    __syncthreads();
    if (t < 32)
        out[2000 + t] = words[t] + counts[t] + top[t];
}
"""
# a bound computed in the test, with C's division of a negative number (truncated, not floored)
NEGATIVE_BOUND = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int i = (int)threadIdx.x - 30000; i < (n - 40000) / 3; i += 32)
        out[i + 30000] = in[i + 30000];
}
"""
# the data steer the loop (a branch on a loaded value), a gather, a barrier, a break: never skipped
DATA_BRANCH = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        if (in[i] > 0.5f)
            s += in[i + n];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""
GATHER = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[(int)(in[i] * n)];
}
"""
BARRIER = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    __shared__ float s[64];
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        s[threadIdx.x] = in[i];
        __syncthreads();
        out[i] = s[63 - threadIdx.x];
        __syncthreads();
    }
}
"""
BREAK = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (i > n - 5000)
            break;
        out[i] = in[i];
    }
}
"""

# (kernel, grid, block): each lane loops at least LoopSkip's WORTH_WATCHING (256) times, but for
# the grid of 40 blocks (sampled, not run whole), which gets a larger n
SKIPPED = [
    (COPY, 1, 32), (COPY, 2, 32), (COPY, 1, 48), (DOT, 1, 32), (DOT, 1, 64), (ROW_MAX, 2, 32),
    (TWO_COUNTERS, 1, 32), (DESCENDING, 2, 32), (UNSIGNED_AND_NOT_EQUAL, 1, 32), (STRIDE_12, 1, 32),
    (NESTED, 1, 64), (COPY, 40, 32), (ATOMICS, 1, 64), (ATOMICS, 2, 32),
    (NEGATIVE_BOUND, 1, 32),
]
LARGE_N = 40 * 32 * 300 + 7
NOT_SKIPPED = [(DATA_BRANCH, 1, 32), (GATHER, 1, 32), (BARRIER, 1, 64), (BREAK, 1, 32), (WRAPPING, 1, 32),
               (COUNTER_BRANCHES, 1, 64), (COUNTER_PERIOD_8, 1, 64)]


def _sample(source, grid, block, skip, l1_sectors):
    k = kernel(source, "k")
    launch = simcore.Launch(k.name, (grid, 1, 1), (block, 1, 1), 0, "sim")
    n = N if grid < 40 else LARGE_N
    found = run_sample(k.program, launch, marshal(k, _inputs(np.random.default_rng(5), n)), l1_sectors=l1_sectors,
                       skip_loops=skip)
    blocks = {b: dataclasses.asdict(c) for b, c in sorted(found.blocks.items())}
    assert found.fell_back is None
    return blocks, found.atomic_lines, found.skipped


def _assert_same_counts(fast, slow):
    assert fast[0].keys() == slow[0].keys()
    for b in fast[0]:
        for field, value in slow[0][b].items():
            if isinstance(value, (int, float)):
                assert fast[0][b][field] == pytest.approx(value, rel=1e-12), (b, field)
            else:
                assert fast[0][b][field] == value, (b, field)
    assert fast[1] == slow[1]


@pytest.mark.parametrize("l1_sectors", [0, 64])
@pytest.mark.parametrize("source, grid, block", SKIPPED)
def test_skipping_counted_loops_counts_what_every_iteration_counts(source, grid, block, l1_sectors):
    fast = _sample(source, grid, block, True, l1_sectors)
    slow = _sample(source, grid, block, False, l1_sectors)
    _assert_same_counts(fast, slow)
    assert slow[2] == 0
    assert fast[2] > 0.5 * (N if grid < 40 else LARGE_N) / (grid * block)    # most of one lane's iterations


@pytest.mark.parametrize("source, grid, block", NOT_SKIPPED)
def test_loops_the_data_or_the_counter_can_steer_are_simulated_whole(source, grid, block):
    fast = _sample(source, grid, block, True, 64)
    assert fast[2] == 0
    _assert_same_counts(fast, _sample(source, grid, block, False, 64))


@pytest.mark.parametrize("source", [DATA_BRANCH, GATHER, BARRIER, BREAK, WRAPPING, COUNTER_BRANCHES,
                                    COUNTER_PERIOD_8])
def test_the_program_alone_rules_out_loops_the_data_or_the_counter_can_steer(source):
    assert skippable_loops(kernel(source, "k").program) == {}


@pytest.mark.parametrize("source, grid, block", [(COPY, 1, 32), (DOT, 1, 64), (ROW_MAX, 2, 32), (NESTED, 1, 64)])
def test_an_estimate_is_the_same_with_and_without_skipping(source, grid, block, monkeypatch):
    k = kernel(source, "k")
    args = _inputs(np.random.default_rng(5))
    fast = k.estimate((grid,), (block,), args)
    original = sampling.run_sample
    monkeypatch.setattr(sys.modules["simcore.perf.estimate"], "run_sample",
                        lambda *a, **kw: original(*a, **{**kw, "skip_loops": False}))
    slow = k.estimate((grid,), (block,), args)
    assert fast.time_ms == pytest.approx(slow.time_ms, rel=1e-12)
    assert fast.bound == slow.bound
    for key, value in slow.per_block.items():
        assert fast.per_block[key] == pytest.approx(value, rel=1e-12), key


# After the loop, a bound is read from where the skipped iterations would have written: the sample
# is simulated whole (without skipping, the bound is what the loop wrote, 2; with it, the huge
# value of the input, and the second loop would count a billion iterations).
STALE_BOUND = r"""
extern "C" __global__ void k(const float *in, int *bound, float *out, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        bound[i] = 2;
    __syncthreads();
    float s = 0.0f;
    for (int j = 0; j < bound[n / 2 + threadIdx.x]; j++)
        s += in[j];
    out[threadIdx.x] = s;
}
"""


def test_a_value_that_steers_read_where_skipped_iterations_wrote_makes_the_sample_whole():
    k = kernel(STALE_BOUND, "k")
    args = [np.ones(N, np.float32), np.full(N, 1 << 30, np.int32), np.zeros(N, np.float32), np.int32(N)]
    launch = simcore.Launch(k.name, (1, 1, 1), (32, 1, 1), 0, "sim")
    found = run_sample(k.program, launch, marshal(k, args))
    assert found.skipped == 0           # the run that skipped read a stale bound: this is the whole one
    assert found.fell_back.startswith("stale read")
    whole = run_sample(k.program, launch, marshal(k, args), skip_loops=False)
    assert dataclasses.asdict(found.blocks[0]) == dataclasses.asdict(whole.blocks[0])


# The same read of what the loop wrote, but only summed (it steers nothing): skipping stays.
STALE_VALUE = STALE_BOUND.replace("for (int j = 0; j < bound[n / 2 + threadIdx.x]; j++)\n        s += in[j];",
                                  "s += bound[n / 2 + threadIdx.x];")


def test_a_value_that_only_computes_may_be_read_where_skipped_iterations_wrote():
    assert STALE_VALUE != STALE_BOUND
    fast = _sample_args(STALE_VALUE, True)
    assert fast[2] > 0
    _assert_same_counts(fast, _sample_args(STALE_VALUE, False))


def _sample_args(source, skip):
    k = kernel(source, "k")
    args = [np.ones(N, np.float32), np.full(N, 1 << 30, np.int32), np.zeros(N, np.float32), np.int32(N)]
    launch = simcore.Launch(k.name, (1, 1, 1), (32, 1, 1), 0, "sim")
    found = run_sample(k.program, launch, marshal(k, args), skip_loops=skip)
    assert found.fell_back is None
    return {b: dataclasses.asdict(c) for b, c in sorted(found.blocks.items())}, found.atomic_lines, found.skipped


# Lanes leave the loop at different iterations and wait at its end for their warp-mates; the
# lanes still looping are watched afresh (the first loop of a histogram, BINS < the block).
LANES_LEAVE = r"""
extern "C" __global__ void k(const float *in, float *out, int n)
{
    for (int j = threadIdx.x; j < 8 + (int)threadIdx.x % 3 * 40000; j += 32)
        out[j] = in[j];
    out[n + threadIdx.x] = 1.0f;
}
"""


@pytest.mark.parametrize("block", [32, 64])
def test_lanes_that_leave_a_loop_early_are_counted_as_simulated(block):
    fast = _sample(LANES_LEAVE, 1, block, True, 64)
    _assert_same_counts(fast, _sample(LANES_LEAVE, 1, block, False, 64))
    assert fast[2] > 0


def test_a_bug_in_the_skipping_costs_time_not_the_estimate(monkeypatch):
    def broken(self, loop, seen, p):
        raise IndexError("a bug")
    slow = _sample(COPY, 1, 32, False, 64)
    monkeypatch.setattr(LoopSkip, "_skip", broken)
    k = kernel(COPY, "k")
    launch = simcore.Launch(k.name, (1, 1, 1), (32, 1, 1), 0, "sim")
    found = run_sample(k.program, launch, marshal(k, _inputs(np.random.default_rng(5))), l1_sectors=64)
    assert found.fell_back == "error in loop_skip (IndexError: a bug)"
    assert {b: dataclasses.asdict(c) for b, c in found.blocks.items()} == slow[0]
