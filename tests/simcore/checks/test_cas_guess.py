"""A plain read of a location that atomicCAS writes is excused only as a CAS loop's guess: a read
whose value an atomicCAS compares with (`old = *p; do { assumed = old; old = atomicCAS(p, assumed,
f(assumed)); } while (assumed != old);`), because the CAS checks it and a stale guess costs one
more round. A read whose value is used otherwise (the result, read while other threads' CASes
may still run) and a plain write are races (docs/semantics.md, "Atomics and CAS loops")."""
import numpy as np
import pytest

import simcore

CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="round_robin"),
           dict(schedule="random", seed=1), dict(schedule="random", seed=6), dict(model="stack")]
IDS = lambda c: "-".join(map(str, c.values()))   # noqa: E731

MAX = r"""
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
    BARRIER
    if (threadIdx.x == 0) out[blockIdx.x] = best;
}
"""
GUIDE = r"""
extern "C" __global__ void k(const float* x, float* out)
{
    int* a = (int*)out;
    int old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __float_as_int(fmaxf(x[blockIdx.x * blockDim.x + threadIdx.x],
                                                         __int_as_float(assumed))));
    } while (assumed != old);
}
"""


def run(src, blocks=2, **cfg):
    x = np.random.default_rng(3).uniform(-1, 1, 64 * blocks).astype(np.float32)
    out = np.full(blocks, -1e30, np.float32)
    simcore.RawModule(code=src).get_function("k")((blocks,), (64,), (x, out), **cfg)
    return x, out


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_the_cas_loops_guess_read_is_no_race(cfg):
    x, out = run(MAX.replace("BARRIER", "__syncthreads();"), **cfg)
    assert list(out) == list(x.reshape(2, 64).max(axis=1))


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_the_guides_cas_loop_between_blocks_is_no_race(cfg):
    x, out = run(GUIDE, blocks=3, **cfg)
    assert out[0] == x.max()


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_reading_the_result_before_the_other_threads_cas_loops_are_over_is_a_race(cfg):
    with pytest.raises(simcore.DataRace) as info:
        run(MAX.replace("BARRIER", ""), **cfg)
    text = str(info.value)
    assert "best" in text and "line 19" in text


@pytest.mark.parametrize("cfg", CONFIGS[:4], ids=IDS)
def test_a_plain_write_of_what_a_cas_wrote_is_a_race(cfg):
    src = MAX.replace("BARRIER", "if (threadIdx.x == 5) best = 0.0f;")
    with pytest.raises(simcore.DataRace) as info:
        run(src, **cfg)
    assert "line 18" in str(info.value) or "line 7" in str(info.value)
