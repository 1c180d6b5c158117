"""A launch frees everything it built as soon as it returns, without the cyclic garbage
collector: a widget that relaunches on every slider move must not grow the process."""
import gc
import weakref

import numpy as np
import pytest

import simcore
from simcore.module import _options
from simcore.runner import run_launch

REDUCE = r"""
__global__ void reduce(float *out, const float *in)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""

RACY = r"""
__global__ void racy(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"""


class CyclicGcOff:
    """Compile and warm up first (the compiler's own cycles are not a launch's), then no cyclic GC."""

    def __enter__(self):
        gc.collect()
        gc.disable()

    def __exit__(self, *exc):
        gc.enable()


def _reduce_args(n=2048):
    x = np.arange(n, dtype=np.float32)
    return np.zeros(n // 256, np.float32), x


@pytest.mark.parametrize("opts", [{}, {"trace": True}, {"checks": False}, {"schedule": "random"},
                                  {"model": "stack"}])
def test_a_launch_leaves_no_reference_cycles(opts):
    k = simcore.RawKernel(REDUCE, "reduce")
    out, x = _reduce_args()
    k((8,), (256,), (out, x), **opts)
    with CyclicGcOff():
        for _ in range(3):          # the record of the previous launch is dropped by each new one
            k((8,), (256,), (out, x), **opts)
        assert np.allclose(out, x.reshape(-1, 256).sum(axis=1))
        assert gc.collect() == 0


def test_a_faulting_traced_launch_leaves_no_reference_cycles():
    k = simcore.RawKernel(RACY, "racy")
    out = np.zeros(64, np.float32)
    with pytest.raises(simcore.KernelFault):
        k((1,), (64,), (out,), trace=True)
    with CyclicGcOff():
        for _ in range(3):
            with pytest.raises(simcore.KernelFault):
                k((1,), (64,), (out,), trace=True)
        assert k.last_launch.fault.kind == "race"
        assert k.last_launch.trace.replay.fault.kind == "race"
        assert gc.collect() == 0


def test_the_engine_and_its_wave_die_when_the_launch_returns():
    k = simcore.RawKernel(REDUCE, "reduce")
    out, x = _reduce_args()
    with CyclicGcOff():
        launch = simcore.module.Launch("reduce", (8, 1, 1), (256, 1, 1), 0, "simulator")
        engine = run_launch(k.program, launch, [out, x], _options(True, "lockstep", "independent", 0, True, None))
        refs = [weakref.ref(o) for o in (engine, engine.wave, engine.memory, engine.ctx, engine.report)]
        refs += [weakref.ref(p) for p in engine.plugins]
        del engine
        assert [r() for r in refs] == [None] * len(refs)
        assert launch.trace is not None and len(launch.trace.replay) > 0      # the record stays
