"""A launch frees everything it built as soon as it returns, without the cyclic garbage
collector: a widget that relaunches on every slider move must not grow the process."""
import gc
import weakref

import numpy as np
import pytest

import simcore
from simcore.bench import REDUCE    # the reduction whose memory the benchmark watches
from simcore.module import _options
from simcore.runner import run_launch

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


def _race_detector_after(source, name, grid, block, args):
    from simcore.plugins.races import RaceDetector
    k = simcore.RawKernel(source, name)
    launch = simcore.module.Launch(name, (grid, 1, 1), (block, 1, 1), 0, "simulator")
    engine = run_launch(k.program, launch, list(args), _options(True, "lockstep", "independent", 0, False, None))
    return engine.plugins.of_type(RaceDetector), engine


def test_the_race_shadow_covers_written_arrays_only():
    """The input (const float *) is only read: it gets no shadow. The output and the shared
    tile get 20 bytes per 4-byte word (two stamps and two 16-bit sites), not 25 for every word
    of every array as before."""
    n = 64 * 256
    out, x = _reduce_args(n)
    races, engine = _race_detector_after(REDUCE, "reduce", n // 256, 256, (out, x))
    assert np.allclose(out, x.reshape(-1, 256).sum(axis=1))
    regions = {r.name: r.id for r in engine.memory.regions.values()}
    assert regions["in"] not in races.global_shadows
    written_words = len(out) + engine.wave.nblk * 256          # out, and the shared tile of the wave
    assert races.shadow_bytes() <= 20 * written_words


def test_a_read_only_input_gets_no_shadow_and_races_on_written_arrays_are_still_found():
    src = r"""
    __global__ void shift(float *out, const float *in)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[i];
        if (i + 1 < 256) out[i + 1] = 1.0f;      // races with the neighbour's write
    }"""
    x = np.arange(256, dtype=np.float32)
    x.flags.writeable = False
    out = np.zeros(256, np.float32)
    with pytest.raises(simcore.KernelFault) as e:
        simcore.RawKernel(src, "shift")((1,), (256,), (out, x))
    assert e.value.kind == "race"
    races, engine = _race_detector_after(src.replace("out[i + 1] = 1.0f", "out[i] += 1.0f"), "shift", 1, 256,
                                         (out, x))
    regions = {r.name: r.id for r in engine.memory.regions.values()}
    assert regions["in"] not in races.global_shadows and regions["out"] in races.global_shadows
