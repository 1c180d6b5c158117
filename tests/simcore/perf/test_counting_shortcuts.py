"""The performance counters' shortcuts (simcore/perf/counters.py) count what the plain
computation counts: a loop's repeated global access pattern worked out once and moved
(_global_pattern), np.unique without its sort where lanes ascend (ascending_unique), a wave's
per-block sums kept in arrays, a convergent step's warps as a slice. Each kernel below is
counted with the shortcuts and with them switched off, block by block and field by field, and
two are checked against sectors and lines counted here by hand."""
import dataclasses

import numpy as np
import pytest

import simcore
from simcore.launch import marshal
from simcore.perf import counters as counters_module
from simcore.perf.sampling import run_sample


def kernel(src, name):
    return simcore.RawModule(code=src, backend="sim").get_function(name)


N = 3000                 # not a multiple of any block size: the last iterations are partial

GRID_STRIDE = r"""
extern "C" __global__ void grid_stride(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * in[i];
}
"""

# the lanes' addresses descend: np.unique's sort is needed
REVERSED = r"""
extern "C" __global__ void reversed(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[n - 1 - i] = in[n - 1 - i] + 1.0f;
}
"""

# a data-dependent trip count per thread, a gather, an early exit of some blocks and a break
DATA_DEPENDENT = r"""
extern "C" __global__ void data_dependent(const float *in, const int *len, float *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x % 3 == 1 || t >= n) return;
    float acc = 0.0f;
    for (int j = 0; j < len[t]; j++) {
        float v = in[(t * 7 + j * 13) % n];
        if (v < -3.5f) break;
        acc += v;
    }
    for (int j = 0; j < threadIdx.x % 5; j++)
        acc += in[(t + j) % n];
    out[t] = acc;
}
"""

# a tiled loop with barriers, misaligned rows and partial tiles at the edge blocks
TILED = r"""
#define TILE 32
extern "C" __global__ void tiled(const float *a, float *out, int n)
{
    __shared__ float tile[TILE];
    int row = blockIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < n; k += TILE) {
        int c = k + threadIdx.x;
        tile[threadIdx.x] = c < n ? a[row * n + c + 1] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; j++)
            acc += tile[(threadIdx.x + j) % TILE];
        __syncthreads();
    }
    out[row * blockDim.x + threadIdx.x] = acc;
}
"""

# wide and narrow loads (float4 members, doubles, chars), partial sector writes, atomics
MIXED = r"""
extern "C" __global__ void mixed(const float4 *v, const double *d, const char *c, float *out,
                                 unsigned int *hist, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float4 q = v[i / 4];
        float s = q.x + q.y + q.z + q.w + (float)d[(i * 3) % n] + (float)c[i];
        if (i % 2 == 0)
            out[i] = s;
        atomicAdd(&hist[c[i] & 7], 1u);
    }
}
"""


def _inputs(name, rng):
    floats = rng.integers(-4, 5, N).astype(np.float32)
    if name == "grid_stride" or name == "reversed":
        return (floats, np.zeros(N, np.float32), np.int32(N))
    if name == "data_dependent":
        return (floats, rng.integers(0, 40, N).astype(np.int32), np.zeros(N, np.float32), np.int32(N))
    if name == "tiled":
        rows = 40
        return (rng.integers(-4, 5, rows * N + 1).astype(np.float32), np.zeros(rows * 1024, np.float32),
                np.int32(N))
    return (rng.integers(-4, 5, (N // 4 + 1) * 4).astype(np.float32).view(np.float32),
            rng.integers(-4, 5, N).astype(np.float64), rng.integers(0, 100, N).astype(np.int8),
            np.zeros(N, np.float32), np.zeros(8, np.uint32), np.int32(N))


CASES = [  # (source, kernel, grid, block)
    (GRID_STRIDE, "grid_stride", 1, 64),
    (GRID_STRIDE, "grid_stride", 8, 96),
    (GRID_STRIDE, "grid_stride", 50, 100),        # a partial warp; edge and interior blocks sampled
    (REVERSED, "reversed", 6, 64),
    (DATA_DEPENDENT, "data_dependent", 40, 64),
    (TILED, "tiled", 40, 32),
    (TILED, "tiled", 3, 64),
    (MIXED, "mixed", 7, 128),
]


def _plain_unique(values, counts=False):
    return np.unique(values, return_counts=counts)


def _switch_off_shortcuts(m):
    """np.unique every time, no remembered patterns, and a convergent step's lanes given as
    an index array (as a divergent step's are) instead of a slice."""
    m.setattr(counters_module, "ascending_unique", _plain_unique)
    m.setattr(counters_module, "PATTERNS_KEPT", 0)
    on_step = counters_module.PerfCounters.on_step

    def on_step_with_lane_indices(self, pc, lanes):
        if isinstance(lanes, slice):
            lanes = np.arange(lanes.start, lanes.stop)
        on_step(self, pc, lanes)
    m.setattr(counters_module.PerfCounters, "on_step", on_step_with_lane_indices)


def _counts(source, name, grid, block, l1_sectors, plain, monkeypatch):
    """{block: its BlockCounts as a dict} and the atomic lines, of a sampled run."""
    with monkeypatch.context() as m:
        if plain:
            _switch_off_shortcuts(m)
        k = kernel(source, name)
        launch = simcore.Launch(k.name, (grid, 1, 1), (block, 1, 1), 0, "sim")
        found = run_sample(k.program, launch, marshal(k, _inputs(name, np.random.default_rng(3))),
                           l1_sectors=l1_sectors)
    return ({b: dataclasses.asdict(c) for b, c in sorted(found.blocks.items())},
            found.atomic_lines, found.region_bytes)


@pytest.mark.parametrize("l1_sectors", [0, 40])
@pytest.mark.parametrize("source, name, grid, block", CASES)
def test_the_shortcuts_count_what_the_plain_computation_counts(source, name, grid, block, l1_sectors, monkeypatch):
    fast = _counts(source, name, grid, block, l1_sectors, False, monkeypatch)
    plain = _counts(source, name, grid, block, l1_sectors, True, monkeypatch)
    assert fast[0].keys() == plain[0].keys()
    for b in fast[0]:
        for field, value in fast[0][b].items():
            assert value == plain[0][b][field], f"block {b}: {field}"
        # each block meets its arrays in the same order (the model sums over them in that order)
        assert list(fast[0][b]["global_sectors"]) == list(plain[0][b]["global_sectors"])
    assert fast[1:] == plain[1:]
    assert any(c["global_sectors"] for c in fast[0].values())


@pytest.mark.parametrize("source, name, grid, block", CASES)
def test_an_estimate_is_the_same_with_and_without_the_shortcuts(source, name, grid, block, monkeypatch):
    args = _inputs(name, np.random.default_rng(3))
    fast = kernel(source, name).estimate((grid,), (block,), args)
    with monkeypatch.context() as m:
        _switch_off_shortcuts(m)
        plain = kernel(source, name).estimate((grid,), (block,), args)
    assert (fast.time_ms, fast.bound, fast.breakdown, fast.per_block) == \
        (plain.time_ms, plain.bound, plain.breakdown, plain.per_block)


def _by_hand(grid, block, n, index):
    """Per block: (read sectors, lines, warp accesses) of `out[index(i)] = f(in[index(i)])` in a
    grid-stride loop, counted lane by lane: a warp access moves each distinct 32-byte sector
    (128-byte line) of its lanes once; a read and a write per warp and iteration."""
    stride = grid * block
    found = {}
    for b in range(grid):
        sectors = lines = accesses = 0
        for w in range(0, block, 32):
            lanes = [b * block + t for t in range(w, min(w + 32, block))]
            k = 0
            while True:
                active = [index(g + k * stride) for g in lanes if g + k * stride < n]
                if not active:
                    break
                sectors += len({4 * i // 32 for i in active})
                lines += 2 * len({4 * i // 128 for i in active})
                accesses += 2
                k += 1
        found[b] = (sectors, lines, accesses)
    return found


@pytest.mark.parametrize("source, name, index", [
    (GRID_STRIDE, "grid_stride", lambda i: i),
    (REVERSED, "reversed", lambda i: N - 1 - i),
])
@pytest.mark.parametrize("grid, block", [(1, 64), (5, 96), (12, 100)])
def test_sectors_lines_and_accesses_are_the_ones_counted_by_hand(source, name, index, grid, block, monkeypatch):
    counts, _, _ = _counts(source, name, grid, block, 0, False, monkeypatch)
    want = _by_hand(grid, block, N, index)
    for b, (sectors, lines, accesses) in want.items():
        got = counts[b]
        assert got["global_sectors"] == {("in", "read"): sectors, ("out", "write"): sectors}, f"block {b}"
        assert (got["global_lines"], got["global_accesses"]) == (lines, accesses), f"block {b}"


ROW_WALK = r"""
extern "C" __global__ void row_walk(const float *m, float *out, int w)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float best = -1e30f;
    for (int c = 0; c < w; c++)
        best = fmaxf(best, m[r * w + c]);
    out[r] = best;
}
"""


@pytest.mark.parametrize("grid, block", [(1, 32), (4, 32), (3, 64)])
def test_a_row_each_thread_walks_misses_the_l1_once_per_sector(grid, block):
    """One thread per row of 64 floats, an L1 larger than every row: each warp access moves one
    sector per lane, and only a sector's first read misses (8 floats a sector)."""
    w = 64
    k = kernel(ROW_WALK, "row_walk")
    launch = simcore.Launch(k.name, (grid, 1, 1), (block, 1, 1), 0, "sim")
    rows = grid * block
    args = (np.ones(rows * w, np.float32), np.zeros(rows, np.float32), np.int32(w))
    found = run_sample(k.program, launch, marshal(k, args), l1_sectors=1 << 20).blocks
    for b in range(grid):
        missed = found[b].global_sectors[("m", "read")]
        assert missed == block * w * 4 // 32, f"block {b}"
        assert missed + found[b].l1_hit_sectors == block * w, f"block {b}"


def test_an_estimate_is_deterministic_across_kernels_and_repeats():
    """The remembered access patterns belong to one estimate: estimating other kernels in
    between, or the same launch again, gives the same estimate."""
    def estimate(source, name, grid, block):
        return kernel(source, name).estimate((grid,), (block,), _inputs(name, np.random.default_rng(3)))
    first = estimate(GRID_STRIDE, "grid_stride", 8, 96)
    for case in CASES:
        estimate(*case)
    again = estimate(GRID_STRIDE, "grid_stride", 8, 96)
    assert (first.time_ms, first.breakdown, first.per_block) == (again.time_ms, again.breakdown, again.per_block)
