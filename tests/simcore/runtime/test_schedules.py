"""Schedules must not matter for correct code, nor for the verdict on faulty code.

Every schedule (lockstep, round_robin, random with several seeds, adversarial) gives the same
exact outputs for correct kernels and the same fault kind for faulty ones.
"""
import functools
import warnings

import numpy as np
import pytest

import simcore
from benchmarks.bench import REDUCE    # the bench's tree reduction, one copy

SCHEDULES = [("lockstep", 0), ("round_robin", 0), ("random", 0), ("random", 1), ("random", 12345),
             ("adversarial", 0)]
SCHED_IDS = [f"{s}-{seed}" if s == "random" else s for s, seed in SCHEDULES]

CORRECT = r"""
__global__ void reverse(float *out, const float *in)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    tile[t] = in[g];
    __syncthreads();
    out[g] = tile[blockDim.x - 1 - t];
}
""" + REDUCE + r"""
__global__ void stencil(float *out, const float *in, int steps)
{
    __shared__ float a[130];
    __shared__ float b[130];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    a[t + 1] = in[g];
    if (t == 0) { a[0] = 0.0f; b[0] = 0.0f; }
    if (t == blockDim.x - 1) { a[t + 2] = 0.0f; b[t + 2] = 0.0f; }
    __syncthreads();
    for (int k = 0; k < steps; ++k) {
        b[t + 1] = 0.25f * a[t] + 0.5f * a[t + 1] + 0.25f * a[t + 2];
        __syncthreads();
        a[t + 1] = b[t + 1];
        __syncthreads();
    }
    out[g] = a[t + 1];
}

__global__ void warp_reduce(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}

__global__ void counts(int *out, const int *pred)
{
    int t = threadIdx.x;
    int c = __syncthreads_count(pred[blockIdx.x * blockDim.x + t]);
    if (t == 0) out[blockIdx.x] = c;
}
"""


@functools.lru_cache(maxsize=None)
def mod(src):
    return simcore.RawModule(code=src)


def run(src, name, grid, block, args, schedule, seed, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", simcore.SimWarning)
        mod(src).get_function(name)((grid,), (block,), args, schedule=schedule, seed=seed, **kw)


def f32_tree_reduce(x, block):
    s = x.reshape(-1, block).copy()
    stride = block // 2
    while stride > 0:
        s[:, :stride] = (s[:, :stride] + s[:, stride:2 * stride]).astype(np.float32)
        stride //= 2
    return s[:, 0]


def stencil_ref(x, block, steps):
    a = x.reshape(-1, block).astype(np.float32)
    for _ in range(steps):
        p = np.pad(a, ((0, 0), (1, 1)))
        a = (np.float32(0.25) * p[:, :-2] + np.float32(0.5) * p[:, 1:-1]).astype(np.float32)
        a = (a + np.float32(0.25) * p[:, 2:]).astype(np.float32)
    return a.ravel()


X = np.random.default_rng(7).standard_normal(3 * 256).astype(np.float32)


@pytest.mark.parametrize("schedule,seed", SCHEDULES, ids=SCHED_IDS)
def test_reverse_same_under_every_schedule(schedule, seed):
    out = np.zeros_like(X)
    run(CORRECT, "reverse", 3, 256, (out, X), schedule, seed)
    np.testing.assert_array_equal(out, X.reshape(3, 256)[:, ::-1].ravel())


@pytest.mark.parametrize("schedule,seed", SCHEDULES, ids=SCHED_IDS)
def test_tree_reduction_same_under_every_schedule(schedule, seed):
    out = np.zeros(3, np.float32)
    run(CORRECT, "reduce", 3, 256, (out, X), schedule, seed)
    np.testing.assert_array_equal(out, f32_tree_reduce(X, 256))


@pytest.mark.parametrize("schedule,seed", SCHEDULES, ids=SCHED_IDS)
def test_stencil_same_under_every_schedule(schedule, seed):
    x = X[:2 * 128]
    out = np.zeros_like(x)
    run(CORRECT, "stencil", 2, 128, (out, x, np.int32(8)), schedule, seed)
    np.testing.assert_allclose(out, stencil_ref(x, 128, 8), rtol=2e-6, atol=1e-6)
    ref = np.zeros_like(x)
    run(CORRECT, "stencil", 2, 128, (ref, x, np.int32(8)), "lockstep", 0)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("schedule,seed", SCHEDULES, ids=SCHED_IDS)
def test_warp_reduction_same_under_every_schedule(schedule, seed):
    out = np.zeros(3 * 256 // 32, np.float32)
    run(CORRECT, "warp_reduce", 3, 256, (out, X), schedule, seed)
    ref = np.zeros_like(out)
    run(CORRECT, "warp_reduce", 3, 256, (ref, X), "lockstep", 0)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_allclose(out, X.reshape(-1, 32).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("schedule,seed", SCHEDULES, ids=SCHED_IDS)
def test_syncthreads_count_same_under_every_schedule(schedule, seed):
    pred = (np.random.default_rng(3).random(2 * 96) < 0.4).astype(np.int32)
    out = np.zeros(2, np.int32)
    run(CORRECT, "counts", 2, 96, (out, pred), schedule, seed)
    np.testing.assert_array_equal(out, pred.reshape(2, 96).sum(axis=1))


# ============================================================== faulty kernels: same verdict
FAULTY = r"""
__global__ void racy(float *out, const float *in)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    tile[t] = in[t];
    out[t] = tile[blockDim.x - 1 - t];
}

__global__ void racy_reduce(float *out, const float *in)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
    }
    if (t == 0) out[0] = s[0];
}

__global__ void ifelse(float *out, const float *in)
{
    int t = threadIdx.x;
    if (t < 100) {
        __syncthreads();
        out[t] = in[t];
    } else {
        __syncthreads();
        out[t] = -in[t];
    }
}

__global__ void ifelse_uniform(float *out, const float *in)
{
    int t = threadIdx.x;
    if (t < 128) {
        __syncthreads();
        out[t] = in[t];
    } else {
        __syncthreads();
        out[t] = -in[t];
    }
}

__global__ void loop(float *out, const float *in)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float acc = 0.0f;
    s[t] = in[t];
    for (int k = 0; k < 1 + (t % 3); ++k) {
        __syncthreads();
        acc += s[(t + k) % 256];
    }
    out[t] = acc;
}

__global__ void oob(float *out, const float *in)
{
    int t = threadIdx.x;
    out[t] = in[t + 1];
}

__global__ void uninit(float *out, const float *in)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    if (t < 200) s[t] = in[t];
    __syncthreads();
    out[t] = s[t];
}

__global__ void badmask(float *out, const float *in)
{
    int t = threadIdx.x;
    float v = in[t];
    if ((t & 31) < 16)
        v += __shfl_xor_sync(0xffffffff, v, 1);
    out[t] = v;
}
"""

FAULTS = [("racy", "race"), ("racy_reduce", "race"), ("ifelse", "divergent_barrier"),
          ("ifelse_uniform", "divergent_barrier"), ("loop", "deadlock"), ("oob", "out_of_bounds"),
          ("uninit", "uninitialized"), ("badmask", "invalid_mask")]


@pytest.mark.parametrize("schedule,seed", SCHEDULES, ids=SCHED_IDS)
@pytest.mark.parametrize("name,kind", FAULTS, ids=[f[0] for f in FAULTS])
def test_faulty_kernel_same_verdict_under_every_schedule(name, kind, schedule, seed):
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    with pytest.raises(simcore.KernelFault) as info:
        mod(FAULTY).get_function(name)((1,), (256,), (out, x), schedule=schedule, seed=seed)
    assert info.value.kind == kind
    assert info.value.report["schedule"] == schedule


def test_random_schedule_is_reproducible_by_seed():
    # unchecked racy kernel: the same seed gives the same (wrong) output
    x = np.arange(256, dtype=np.float32)
    outs = []
    for seed in (5, 5, 6):
        out = np.zeros(256, np.float32)
        mod(FAULTY).get_function("racy")((1,), (256,), (out, x), schedule="random", seed=seed, checks=False)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_unchecked_race_output_depends_on_schedule():
    x = np.arange(1, 257, dtype=np.float32)
    good = x[::-1]
    results = {}
    for schedule, seed in SCHEDULES:
        out = np.zeros(256, np.float32)
        mod(FAULTY).get_function("racy")((1,), (256,), (out, x), schedule=schedule, seed=seed, checks=False)
        results[(schedule, seed)] = (out != good).mean()
    assert results[("adversarial", 0)] > 0      # the schedule that exposes the missing barrier
    assert len({round(v, 3) for v in results.values()}) > 1


def test_adversarial_schedule_across_waves_of_different_sizes():
    """A later wave with fewer warps than the warp the adversarial schedule ran last in the
    previous wave (9 blocks of 1024 threads: a full wave, then one block) must not crash."""
    src = r"""
extern "C" __global__ void last_warp_adds(const float *in, float *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x / 32 == 0) {
        __syncthreads();          // legal: the other warps exit; they ran last in their wave
        if (i < n)
            atomicAdd(total, in[i]);
    }
}
"""
    k = simcore.RawModule(code=src, backend="sim").get_function("last_warp_adds")
    n = 9 * 1024
    x = np.ones(n, np.float32)
    total = np.zeros(1, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # the fragile-barrier note
        k((9,), (1024,), (x, total, np.int32(n)), schedule="adversarial")
    assert total[0] == 9 * 32
