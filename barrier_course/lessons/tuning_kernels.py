"""The course's block-size tuning kernels: CUDA sources, launch shapes and numpy references.

One place for the kernels that the H200 block-size sweeps measured
(`tools/measure_block_sizes.py`, results in `course/data/h200-block-sweeps.json`), that the
timing model is validated on (`tools/validate_timing_model.py`) and that the lessons and
tests run on the simulator. Every source is plain CUDA C in simcore's subset
(`extern "C" __global__`, no templates, structs or vector types) and compiles with
`nvcc -ptx -arch=sm_90`.

This module needs numpy only (no simcore, no CuPy), so the measurement script can carry it to
a GPU machine on its own. Compile-time sizes are passed as `-D` options: BLOCK (threads per
block, or for 2-D kernels the tile's rows), RADIUS, STEPS.
"""
from dataclasses import dataclass, field
import math

import numpy as np

SOURCES = {}

SOURCES["copy"] = r"""
// out[i] = in[i]: one element per thread, the memory-bound baseline.
extern "C" __global__ void copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
"""

SOURCES["stencil_1d"] = r"""
// out[i] = in[i - RADIUS] + ... + in[i + RADIUS] (outside the array counts as 0).
// One tile of BLOCK outputs per block; the tile and its halo are staged in shared memory.
extern "C" __global__ void stencil_1d(const float *in, float *out, int n)
{
    __shared__ float tile[BLOCK + 2 * RADIUS];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    for (int j = t; j < BLOCK + 2 * RADIUS; j += BLOCK) {     // tile + halo, BLOCK at a time
        int g = base - RADIUS + j;
        tile[j] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    __syncthreads();                                          // the tile is full
    float sum = 0.0f;
    for (int k = 0; k <= 2 * RADIUS; k++)
        sum += tile[t + k];
    int i = base + t;
    if (i < n)
        out[i] = sum;
}
"""

SOURCES["stencil_steps"] = r"""
// STEPS steps of v[j] = 0.25 v[j-1] + 0.5 v[j] + 0.25 v[j+1] (outside the array starts at 0),
// all in shared memory: each block loads BLOCK values plus a halo of STEPS on each side,
// ping-pongs between two buffers with a barrier after every step, and writes BLOCK values.
// STEPS must be even (the result ends in buffer a).
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
        __syncthreads();                                      // b is complete
        for (int j = t; j < WIDTH; j += BLOCK)
            a[j] = (j > 0 && j < WIDTH - 1) ? 0.25f * b[j - 1] + 0.5f * b[j] + 0.25f * b[j + 1] : b[j];
        __syncthreads();                                      // a is complete
    }
    int i = blockIdx.x * BLOCK + t;
    if (i < n)
        out[i] = a[STEPS + t];
}
"""

SOURCES["tree_sum_atomic"] = r"""
// *total += sum(in): a shared-memory tree per block (a barrier per level), then one atomicAdd
// per block. BLOCK must be a power of two.
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

SOURCES["shuffle_sum_atomic"] = r"""
// *total += sum(in): warp shuffles, one partial per warp in shared memory, one barrier,
// warp 0 sums the partials, then one atomicAdd per block. BLOCK must be a multiple of 32.
extern "C" __global__ void shuffle_sum_atomic(const float *in, float *total, int n)
{
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int i = blockIdx.x * BLOCK + t;
    float v = (i < n) ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();                                          // the only block barrier
    if (warp == 0) {
        v = (lane < BLOCK / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0)
            atomicAdd(total, v);
    }
}
"""

SOURCES["transpose"] = r"""
// out = in^T for a height x width matrix (row-major), through a 32 x 33 shared tile (the extra
// column avoids bank conflicts). Blocks are 32 x ROWS threads; each thread moves 32/ROWS
// elements. ROWS = BLOCK / 32 must divide 32.
#define ROWS (BLOCK / 32)
extern "C" __global__ void transpose(const float *in, float *out, int width, int height)
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

SOURCES["matmul_tiled"] = r"""
// C = A B for n x n row-major matrices, TILE x TILE blocks (TILE = sqrt(BLOCK)), one output
// per thread, tiles of A and B staged in shared memory with two barriers per tile.
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
        __syncthreads();                                      // both tiles are loaded
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();                                      // done reading the tiles
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
"""

SOURCES["block_scan"] = r"""
// Inclusive scan of each block's BLOCK elements (Hillis-Steele, two barriers per step:
// everybody reads, then everybody writes), plus each block's total in block_sums.
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
        __syncthreads();                                      // all reads of this step done
        buf[t] = v;
        __syncthreads();                                      // all writes of this step done
    }
    if (i < n)
        out[i] = buf[t];
    if (t == BLOCK - 1)
        block_sums[blockIdx.x] = buf[t];
}
"""

BLOCK_SIZES = (32, 64, 128, 256, 512, 1024)


def _ints(rng, size, low=-4, high=5):
    """Small integers as float32: every float sum the kernels do is then exact."""
    return rng.integers(low, high, size).astype(np.float32)


def _stencil_reference(x, radius):
    return np.convolve(x.astype(np.float64), np.ones(2 * radius + 1), mode="same").astype(np.float32)


def _steps_reference(x, steps):
    v = np.concatenate([np.zeros(steps), x.astype(np.float64), np.zeros(steps)])
    for _ in range(steps):
        w = v.copy()
        w[1:-1] = 0.25 * v[:-2] + 0.5 * v[1:-1] + 0.25 * v[2:]
        v = w
    return v[steps:-steps]


@dataclass(frozen=True)
class Case:
    """One kernel at one problem size: how to compile, launch and check it at any block size.

    `size` is the element count (1-D kernels) or the matrix side (2-D kernels).
    """
    name: str                 # unique, e.g. "stencil_1d_r3/2^24"
    kernel: str               # the __global__ function
    size: int
    macros: dict = field(default_factory=dict)   # fixed -D values besides BLOCK
    blocks: tuple = BLOCK_SIZES

    @property
    def source(self):
        return SOURCES[self.kernel]

    def options(self, block):
        """-D options for `block` threads per block."""
        opts = [f"-DBLOCK={block}"]
        if self.kernel == "matmul_tiled":
            opts.append(f"-DTILE={math.isqrt(block)}")
        opts += [f"-D{k}={v}" for k, v in self.macros.items()]
        return tuple(opts)

    def shape(self, block):
        """(grid, block) tuples for a launch with `block` threads per block."""
        n = self.size
        if self.kernel == "transpose":
            return (n // 32, n // 32), (32, block // 32)
        if self.kernel == "matmul_tiled":
            tile = math.isqrt(block)
            return (-(-n // tile), -(-n // tile)), (tile, tile)
        return (-(-n // block),), (block,)

    def make_inputs(self, seed=0):
        """Host (numpy) arrays and scalars for a launch; outputs are zero-filled."""
        rng = np.random.default_rng(seed)
        n = self.size
        if self.kernel in ("copy", "stencil_1d", "stencil_steps"):
            return (_ints(rng, n), np.zeros(n, np.float32), np.int32(n))
        if self.kernel in ("tree_sum_atomic", "shuffle_sum_atomic"):
            return (_ints(rng, n, 0, 3), np.zeros(1, np.float32), np.int32(n))
        if self.kernel == "transpose":
            return (_ints(rng, n * n), np.zeros(n * n, np.float32), np.int32(n), np.int32(n))
        if self.kernel == "matmul_tiled":
            return (_ints(rng, n * n, -2, 3), _ints(rng, n * n, -2, 3),
                    np.zeros(n * n, np.float32), np.int32(n))
        if self.kernel == "block_scan":
            return (_ints(rng, n), np.zeros(n, np.float32),
                    np.zeros(-(-n // 32), np.float32), np.int32(n))
        raise ValueError(f"no inputs for kernel {self.kernel!r}")

    def check(self, inputs, outputs, block):
        """Raise AssertionError unless `outputs` (host copies of the launch's args) are right."""
        n = self.size
        x = inputs[0]
        if self.kernel == "copy":
            got, want = outputs[1], x
        elif self.kernel == "stencil_1d":
            got, want = outputs[1], _stencil_reference(x, self.macros["RADIUS"])
        elif self.kernel == "stencil_steps":
            got, want = outputs[1], _steps_reference(x, self.macros["STEPS"])
        elif self.kernel in ("tree_sum_atomic", "shuffle_sum_atomic"):
            got, want = outputs[1], np.array([x.astype(np.float64).sum()])
        elif self.kernel == "transpose":
            got, want = outputs[1], x.reshape(n, n).T.ravel()
        elif self.kernel == "matmul_tiled":
            a = x.reshape(n, n).astype(np.float64)
            b = inputs[1].reshape(n, n).astype(np.float64)
            got, want = outputs[2], (a @ b).ravel()
        elif self.kernel == "block_scan":
            blocks = -(-n // block)
            padded = np.zeros(blocks * block)
            padded[:n] = x
            scans = np.cumsum(padded.reshape(blocks, block), axis=1)
            got = np.concatenate([outputs[1], outputs[2][:blocks]])
            want = np.concatenate([scans.ravel()[:n], scans[:, -1]])
        else:
            raise ValueError(f"no check for kernel {self.kernel!r}")
        if not np.allclose(np.asarray(got, np.float64), want, rtol=1e-6, atol=1e-4):
            bad = np.flatnonzero(~np.isclose(np.asarray(got, np.float64), want, rtol=1e-6, atol=1e-4))
            raise AssertionError(f"{self.name} block {block}: {bad.size} wrong values, first at "
                                 f"{bad[0]}: got {got[bad[0]]}, want {want[bad[0]]}")


def cases(scale="measured"):
    """The sweeps. scale="measured": the problem sizes measured on the H200;
    scale="small": the same kernels on small sizes (a few blocks) for checks on the simulator."""
    big = scale == "measured"
    n_large, n_small = (1 << 24, 1 << 20) if big else (3000, 1000)
    side_t, side_m = (4096, 2048) if big else (64, 48)
    out = []
    for n in ((n_large, n_small) if big else (n_large,)):
        tag = f"2^{n.bit_length() - 1}" if big else str(n)
        out += [
            Case(f"copy/{tag}", "copy", n),
            Case(f"stencil_1d_r3/{tag}", "stencil_1d", n, {"RADIUS": 3}),
            Case(f"stencil_1d_r64/{tag}", "stencil_1d", n, {"RADIUS": 64}),
            Case(f"stencil_steps_8/{tag}", "stencil_steps", n, {"STEPS": 8}),
            Case(f"tree_sum_atomic/{tag}", "tree_sum_atomic", n),
            Case(f"shuffle_sum_atomic/{tag}", "shuffle_sum_atomic", n),
            Case(f"block_scan/{tag}", "block_scan", n),
        ]
    out += [
        Case(f"transpose/{side_t}^2", "transpose", side_t),
        Case(f"matmul_tiled/{side_m}^2", "matmul_tiled", side_m, blocks=(64, 256, 1024)),
    ]
    return out
