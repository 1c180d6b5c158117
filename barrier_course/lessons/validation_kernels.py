"""Kernels the timing model is checked against: one table row per H200 block-size sweep.

Every row is a kernel of a shape the course teaches (atomics with and without contention,
fixed small and large grids, grid-stride loops, iterated stencils, reductions, scans,
transposes, tiled matmul, vector loads, blocks that exit early or do different work), with its
launch shape, inputs and a numpy check. `role` splits them:

  * "training": where the model's parameters and rules may come from (microbenchmarks and
    the kernels a rule was designed on);
  * "heldout": fixed and measured before the model's errors on them were looked at; no rule
    or parameter is changed after seeing them (docs/timing-validation.md reports them apart).

`tools/measure_timing_sweeps.py` measures every row on a GPU (CuPy events);
`tools/validate_timing_model.py` compares simcore's estimates with those measurements.
numpy only (no simcore, no CuPy), so the file can travel to a GPU machine on its own.
Sources are plain CUDA C in simcore's subset; BLOCK is passed as `-DBLOCK=...`.
"""
from dataclasses import dataclass, field

import numpy as np

BLOCKS = (32, 64, 128, 256, 512, 1024)
SMS = 132


def _ints(rng, n, low=-4, high=5):
    """Small integers as float32: every float sum is then exact in any order."""
    return rng.integers(low, high, n).astype(np.float32)


def _equal(got, want, what):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    bad = np.flatnonzero(~np.isclose(got, want, rtol=1e-6, atol=1e-3))
    if bad.size:
        raise AssertionError(f"{what}: {bad.size} wrong values, first at {bad[0]}: got {got.ravel()[bad[0]]}, "
                             f"want {want.ravel()[bad[0]]}")


@dataclass(frozen=True)
class Sweep:
    """One kernel at one problem size, launchable at every block size in `blocks`.

    shape(block) -> (grid, block tuple); inputs(rng) -> launch args (numpy arrays and scalars);
    check(inputs, outputs, block) raises AssertionError when the outputs are wrong."""
    name: str
    role: str                      # "training" | "heldout"
    kernel: str
    source: str
    shape: object
    inputs: object
    check: object
    blocks: tuple = BLOCKS
    macros: dict = field(default_factory=dict)

    def options(self, block):
        return (f"-DBLOCK={block}",) + tuple(f"-D{k}={v}" for k, v in self.macros.items())


def one_per_thread(n):
    return lambda b: ((-(-n // b),), (b,))


def fixed_grid(blocks):
    return lambda b: ((blocks,), (b,))


# ---------------------------------------------------------------- sources
SRC = {}
SRC["atomic_same_global"] = r"""
// every thread adds 1 to one float: n same-address atomics across the whole grid
extern "C" __global__ void atomic_same_global(float *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(total, 1.0f);
}
"""
SRC["atomic_per_warp_global"] = r"""
// a warp sum with shuffles, then lane 0 of every warp adds it to one float
extern "C" __global__ void atomic_per_warp_global(const float *in, float *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        atomicAdd(total, v);
}
"""
SRC["atomic_spread_global"] = r"""
// one atomic per thread into BINS counters: contention spread over BINS addresses
extern "C" __global__ void atomic_spread_global(const int *keys, float *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[keys[i]], 1.0f);
}
"""
SRC["shared_atomic_same"] = r"""
// every thread adds 1 to one shared word, then thread 0 adds the block's count to *total
extern "C" __global__ void shared_atomic_same(float *total, int n)
{
    __shared__ float count;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        count = 0.0f;
    __syncthreads();
    if (i < n)
        atomicAdd(&count, 1.0f);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(total, count);
}
"""
SRC["histogram_shared"] = r"""
// a 256-bin histogram: a grid-stride loop with one shared atomic per element, then one global
// atomic per bin per block
extern "C" __global__ void histogram_shared(const int *keys, unsigned int *bins, int n)
{
    __shared__ unsigned int local[256];
    for (int j = threadIdx.x; j < 256; j += blockDim.x)
        local[j] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[keys[i]], 1u);
    __syncthreads();
    for (int j = threadIdx.x; j < 256; j += blockDim.x)
        atomicAdd(&bins[j], local[j]);
}
"""
SRC["grid_stride_sum"] = r"""
// *total += sum(in): a grid-stride loop per thread, a warp shuffle sum, one atomic per warp
extern "C" __global__ void grid_stride_sum(const float *in, float *total, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        atomicAdd(total, v);
}
"""
SRC["grid_stride_copy"] = r"""
// out[i] = in[i] over a grid-stride loop (a fixed grid of any size)
extern "C" __global__ void grid_stride_copy(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[i];
}
"""
SRC["dependent_chain"] = r"""
// a chain of dependent loads: next = in[next], REPS times per thread (latency, not bandwidth)
extern "C" __global__ void dependent_chain(const int *next, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i % n;
    for (int r = 0; r < REPS; r++)
        p = next[p];
    out[i] = p;
}
"""
SRC["fma_chain"] = r"""
// REPS dependent multiply-adds per thread: the issue rate and the dependent-issue latency
extern "C" __global__ void fma_chain(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = (float)(i % 7), b = 0.5f;
    for (int r = 0; r < REPS; r++)
        a = a * b + 1.0f;
    if (i < n)
        out[i] = a;
}
"""
SRC["copy"] = r"""
extern "C" __global__ void copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
"""
SRC["copy_float4"] = r"""
// out[i] = in[i] with one 16-byte load and store per thread (n4 = n / 4 float4s)
extern "C" __global__ void copy_float4(const float4 *in, float4 *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        out[i] = in[i];
}
"""
SRC["sum_float4"] = r"""
// *total += sum(in): each thread loads one float4, then a warp shuffle sum and one atomic per warp
extern "C" __global__ void sum_float4(const float4 *in, float *total, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n4) {
        float4 q = in[i];
        v = q.x + q.y + q.z + q.w;
    }
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        atomicAdd(total, v);
}
"""
SRC["stencil_steps"] = r"""
#define WIDTH (BLOCK + 2 * STEPS)
extern "C" __global__ void stencil_steps(const float *in, float *out, int n)
{
    __shared__ float a[WIDTH];
    __shared__ float b[WIDTH];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK - STEPS;
    for (int j = t; j < WIDTH; j += BLOCK) {
        int g = base + j;
        a[j] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    __syncthreads();
    for (int s = 0; s < STEPS; s += 2) {
        for (int j = t; j < WIDTH; j += BLOCK)
            b[j] = (j > 0 && j < WIDTH - 1) ? 0.25f * a[j - 1] + 0.5f * a[j] + 0.25f * a[j + 1] : a[j];
        __syncthreads();
        for (int j = t; j < WIDTH; j += BLOCK)
            a[j] = (j > 0 && j < WIDTH - 1) ? 0.25f * b[j - 1] + 0.5f * b[j] + 0.25f * b[j + 1] : b[j];
        __syncthreads();
    }
    int i = blockIdx.x * BLOCK + t;
    if (i < n)
        out[i] = a[STEPS + t];
}
"""
SRC["tree_sum_atomic"] = r"""
extern "C" __global__ void tree_sum_atomic(const float *in, float *total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    partial[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(total, partial[0]);
}
"""
SRC["block_scan"] = r"""
extern "C" __global__ void block_scan(const float *in, float *out, float *block_sums, int n)
{
    __shared__ float buf[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    buf[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset *= 2) {
        float v = buf[t];
        if (t >= offset)
            v += buf[t - offset];
        __syncthreads();
        buf[t] = v;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[t];
    if (t == BLOCK - 1)
        block_sums[blockIdx.x] = buf[t];
}
"""
SRC["transpose_naive"] = r"""
// out = in^T straight from global memory: reads coalesced, writes strided by the height
extern "C" __global__ void transpose_naive(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * (BLOCK / 32) + threadIdx.y;
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}
"""
SRC["transpose_tiled"] = r"""
#define ROWS (BLOCK / 32)
extern "C" __global__ void transpose_tiled(const float *in, float *out, int width, int height)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""
SRC["matmul_tiled"] = r"""
extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = (row < n && k0 + tx < n) ? A[row * n + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < n && col < n) ? B[(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
"""
SRC["early_exit_half"] = r"""
// out[i] = 2 in[i] + 1, but only the even blocks have work: the odd ones return at once
extern "C" __global__ void early_exit_half(const float *in, float *out, int n)
{
    if (blockIdx.x % 2 == 1)
        return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i] + 1.0f;
}
"""
SRC["heavy_middle_blocks"] = r"""
// the blocks in the second quarter of the grid do WORK dependent multiply-adds per thread,
// the others one: blocks that differ, in places a first/middle/last sample can miss
extern "C" __global__ void heavy_middle_blocks(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int reps = (blockIdx.x >= gridDim.x / 4 && blockIdx.x < gridDim.x / 2 - 1) ? WORK : 1;
    float a = (i < n) ? in[i] : 0.0f;
    for (int r = 0; r < reps; r++)
        a = a * 0.5f + 1.0f;
    if (i < n)
        out[i] = a;
}
"""


def _chain_next(n, rng):
    perm = rng.permutation(n).astype(np.int32)
    nxt = np.empty(n, np.int32)
    nxt[perm] = np.roll(perm, -1)
    return nxt


def _fma_reference(i, reps):
    a = (i % 7).astype(np.float32)
    for _ in range(reps):
        a = (a * np.float32(0.5) + np.float32(1.0)).astype(np.float32)
    return a


def _steps_reference(x, steps):
    v = np.concatenate([np.zeros(steps), x.astype(np.float64), np.zeros(steps)])
    for _ in range(steps):
        w = v.copy()
        w[1:-1] = 0.25 * v[:-2] + 0.5 * v[1:-1] + 0.25 * v[2:]
        v = w
    return v[steps:-steps]


def _sum_check(ins, outs, b, name):
    _equal(outs[1], [ins[0].astype(np.float64).sum()], name)


def _build():
    rows = []
    add = rows.append
    T, H = "training", "heldout"

    # ------------------------------------------------ training: microbenchmarks and rule designs
    n = 1 << 20
    add(Sweep("atomic_same_global/2^20", T, "atomic_same_global", SRC["atomic_same_global"], one_per_thread(n),
              lambda rng, n=n: (np.zeros(1, np.float32), np.int32(n)),
              lambda ins, outs, b, n=n: _equal(outs[0], [n], "atomic_same_global")))
    n = 1 << 24
    add(Sweep("atomic_per_warp_global/2^24", T, "atomic_per_warp_global", SRC["atomic_per_warp_global"],
              one_per_thread(n), lambda rng, n=n: (_ints(rng, n, 0, 3), np.zeros(1, np.float32), np.int32(n)),
              lambda ins, outs, b: _sum_check(ins, outs, b, "atomic_per_warp_global")))
    add(Sweep("atomic_spread_global_4096/2^22", T, "atomic_spread_global", SRC["atomic_spread_global"],
              one_per_thread(1 << 22),
              lambda rng: (rng.integers(0, 4096, 1 << 22).astype(np.int32), np.zeros(4096, np.float32),
                           np.int32(1 << 22)),
              lambda ins, outs, b: _equal(outs[1], np.bincount(ins[0], minlength=4096), "atomic_spread")))
    add(Sweep("shared_atomic_same/2^22", T, "shared_atomic_same", SRC["shared_atomic_same"], one_per_thread(1 << 22),
              lambda rng: (np.zeros(1, np.float32), np.int32(1 << 22)),
              lambda ins, outs, b: _equal(outs[0], [1 << 22], "shared_atomic_same")))
    for blocks in (1, 8, 132):
        add(Sweep(f"grid_stride_copy/grid{blocks}/2^20", T, "grid_stride_copy", SRC["grid_stride_copy"],
                  fixed_grid(blocks), lambda rng: (_ints(rng, 1 << 20), np.zeros(1 << 20, np.float32), np.int32(1 << 20)),
                  lambda ins, outs, b: _equal(outs[1], ins[0], "grid_stride_copy")))
    for grid, tag in ((1, "grid1"), (SMS * 16, "grid2112")):
        add(Sweep(f"dependent_chain/{tag}", T, "dependent_chain", SRC["dependent_chain"],
                  fixed_grid(grid), lambda rng: (_chain_next(1 << 20, rng), np.zeros(1024 * SMS * 16, np.int32),
                                                 np.int32(1 << 20)),
                  lambda ins, outs, b: None, macros={"REPS": 64}))
    add(Sweep("fma_chain/2^22", T, "fma_chain", SRC["fma_chain"], one_per_thread(1 << 22),
              lambda rng: (np.zeros(1 << 22, np.float32), np.int32(1 << 22)),
              lambda ins, outs, b: _equal(outs[0], _fma_reference(np.arange(1 << 22), 256), "fma_chain"),
              macros={"REPS": 256}))
    add(Sweep("copy/2^22", T, "copy", SRC["copy"], one_per_thread(1 << 22),
              lambda rng: (_ints(rng, 1 << 22), np.zeros(1 << 22, np.float32), np.int32(1 << 22)),
              lambda ins, outs, b: _equal(outs[1], ins[0], "copy")))
    add(Sweep("stencil_steps_2/2^22", T, "stencil_steps", SRC["stencil_steps"], one_per_thread(1 << 22),
              lambda rng: (_ints(rng, 1 << 22), np.zeros(1 << 22, np.float32), np.int32(1 << 22)),
              lambda ins, outs, b: _equal(outs[1], _steps_reference(ins[0], 2), "stencil_steps_2"),
              macros={"STEPS": 2}))

    # ------------------------------------------------ held out: fixed before the model's errors were seen
    n = 1 << 22
    floats = lambda rng, n=n: (_ints(rng, n), np.zeros(n, np.float32), np.int32(n))     # noqa: E731
    one_total = lambda rng, n=n: (_ints(rng, n, 0, 3), np.zeros(1, np.float32), np.int32(n))  # noqa: E731
    keys = lambda rng, n=n: (rng.integers(0, 256, n).astype(np.int32), np.zeros(256, np.uint32), np.int32(n))  # noqa
    add(Sweep("histogram_shared/grid264/2^22", H, "histogram_shared", SRC["histogram_shared"], fixed_grid(2 * SMS), keys,
              lambda ins, outs, b: _equal(outs[1], np.bincount(ins[0], minlength=256), "histogram")))
    add(Sweep("histogram_shared/grid4096/2^22", H, "histogram_shared", SRC["histogram_shared"], fixed_grid(4096), keys,
              lambda ins, outs, b: _equal(outs[1], np.bincount(ins[0], minlength=256), "histogram")))
    add(Sweep("atomic_same_global/2^22", H, "atomic_same_global", SRC["atomic_same_global"], one_per_thread(n),
              lambda rng, n=n: (np.zeros(1, np.float32), np.int32(n)),
              lambda ins, outs, b, n=n: _equal(outs[0], [n], "atomic_same_global")))
    add(Sweep("atomic_per_warp_global/2^22", H, "atomic_per_warp_global", SRC["atomic_per_warp_global"],
              one_per_thread(n), one_total, lambda ins, outs, b: _sum_check(ins, outs, b, "per_warp")))
    add(Sweep("atomic_spread_global_256/2^22", H, "atomic_spread_global", SRC["atomic_spread_global"],
              one_per_thread(n),
              lambda rng: (rng.integers(0, 256, n).astype(np.int32), np.zeros(256, np.float32), np.int32(n)),
              lambda ins, outs, b: _equal(outs[1], np.bincount(ins[0], minlength=256), "atomic_spread")))
    for grid in (8, 32, 1056):
        add(Sweep(f"grid_stride_sum/grid{grid}/2^22", H, "grid_stride_sum", SRC["grid_stride_sum"], fixed_grid(grid),
                  one_total, lambda ins, outs, b: _sum_check(ins, outs, b, "grid_stride_sum")))
    for steps in (8, 32):
        add(Sweep(f"stencil_steps_{steps}/2^22", H, "stencil_steps", SRC["stencil_steps"], one_per_thread(n), floats,
                  lambda ins, outs, b, s=steps: _equal(outs[1], _steps_reference(ins[0], s), "stencil_steps"),
                  macros={"STEPS": steps}))
    add(Sweep("tree_sum_atomic/2^22", H, "tree_sum_atomic", SRC["tree_sum_atomic"], one_per_thread(n), one_total,
              lambda ins, outs, b: _sum_check(ins, outs, b, "tree_sum")))
    add(Sweep("block_scan/2^22", H, "block_scan", SRC["block_scan"], one_per_thread(n),
              lambda rng: (_ints(rng, n), np.zeros(n, np.float32), np.zeros(n // 32, np.float32), np.int32(n)),
              _scan_check))
    side = 2048
    square = lambda rng: (_ints(rng, side * side), np.zeros(side * side, np.float32), np.int32(side), np.int32(side))  # noqa
    tcheck = lambda ins, outs, b: _equal(outs[1], ins[0].reshape(side, side).T.ravel(), "transpose")  # noqa
    add(Sweep("transpose_naive/2048^2", H, "transpose_naive", SRC["transpose_naive"],
              lambda b: ((side // 32, side // (b // 32)), (32, b // 32)), square, tcheck))
    add(Sweep("transpose_tiled/2048^2", H, "transpose_tiled", SRC["transpose_tiled"],
              lambda b: ((side // 32, side // 32), (32, b // 32)), square, tcheck))
    m = 1024
    add(Sweep("matmul_tiled/1024^2", H, "matmul_tiled", SRC["matmul_tiled"],
              lambda b, m=m: ((m // _tile(b), m // _tile(b)), (_tile(b), _tile(b))),
              lambda rng: (_ints(rng, m * m, -2, 3), _ints(rng, m * m, -2, 3), np.zeros(m * m, np.float32), np.int32(m)),
              lambda ins, outs, b: _equal(outs[2], (ins[0].reshape(m, m).astype(np.float64)
                                                    @ ins[1].reshape(m, m)).ravel(), "matmul"),
              blocks=(64, 256, 1024), macros={"TILE": "TILE_OF_BLOCK"}))
    n24 = 1 << 24
    add(Sweep("copy/2^24", H, "copy", SRC["copy"], one_per_thread(n24),
              lambda rng: (_ints(rng, n24), np.zeros(n24, np.float32), np.int32(n24)),
              lambda ins, outs, b: _equal(outs[1], ins[0], "copy")))
    add(Sweep("copy_float4/2^24", H, "copy_float4", SRC["copy_float4"], one_per_thread(n24 // 4),
              lambda rng: (_ints(rng, n24), np.zeros(n24, np.float32), np.int32(n24 // 4)),
              lambda ins, outs, b: _equal(outs[1], ins[0], "copy_float4")))
    add(Sweep("sum_float4/2^24", H, "sum_float4", SRC["sum_float4"], one_per_thread(n24 // 4),
              lambda rng: (_ints(rng, n24, 0, 3), np.zeros(1, np.float32), np.int32(n24 // 4)),
              lambda ins, outs, b: _sum_check(ins, outs, b, "sum_float4")))
    add(Sweep("early_exit_half/2^24", H, "early_exit_half", SRC["early_exit_half"], one_per_thread(n24),
              lambda rng: (_ints(rng, n24), np.zeros(n24, np.float32), np.int32(n24)), _early_exit_check))
    add(Sweep("heavy_middle_blocks/2^22", H, "heavy_middle_blocks", SRC["heavy_middle_blocks"], one_per_thread(n),
              floats, lambda ins, outs, b: None, macros={"WORK": 512}))
    return rows


def _tile(block):
    return int(round(block ** 0.5))


def _scan_check(ins, outs, b):
    n = ins[0].size
    scans = np.cumsum(ins[0].astype(np.float64).reshape(-1, b), axis=1)
    _equal(outs[1], scans.ravel(), "block_scan")
    _equal(outs[2][: n // b], scans[:, -1], "block_scan sums")


def _early_exit_check(ins, outs, b):
    want = (2.0 * ins[0] + 1.0).reshape(-1, b)
    want[1::2] = 0.0
    _equal(outs[1], want.ravel(), "early_exit_half")


SWEEPS = _build()


def sweep_options(sweep, block):
    """-D options for `block` (matmul's TILE is the square root of the block)."""
    opts = [f"-DBLOCK={block}"]
    for k, v in sweep.macros.items():
        opts.append(f"-D{k}={_tile(block) if v == 'TILE_OF_BLOCK' else v}")
    return tuple(opts)


def heldout():
    return [s for s in SWEEPS if s.role == "heldout"]


def training():
    return [s for s in SWEEPS if s.role == "training"]
