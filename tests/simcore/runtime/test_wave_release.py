"""A finished launch gives its wave's memory back at once: nothing the launch built (sync
resolution, the checks, the reporter) holds the wave in a reference cycle that only the garbage
collector would break, so the next launch reuses the pages instead of touching fresh ones."""
import gc
import weakref

import numpy as np
import pytest

import simcore
import simcore.runtime.runner
from simcore.checks import Plugin
from simcore.plugins import REGISTERED

SRC = r"""
extern "C" __global__ void handoff(int *out, const int *x) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 64) { s[t] = x[t]; asm volatile("bar.arrive 1, 128;"); }
    else { asm volatile("bar.sync 1, 128;"); s[t] = s[t - 64] + __shfl_down_sync(0xffffffff, x[t], 1); }
    __syncthreads();
    out[blockIdx.x * 128 + t] = __syncthreads_count(s[t] > 3) + __reduce_add_sync(0xffffffff, s[t]);
}
"""


class WaveWatch(Plugin):
    """Remembers each wave it is shown, weakly."""
    waves = []

    @classmethod
    def wanted(cls, options):
        return True

    def on_wave_start(self, wave):
        WaveWatch.waves.append(weakref.ref(wave))


@pytest.mark.parametrize("checks", [True, False])
def test_a_finished_launchs_wave_is_freed_without_the_garbage_collector(monkeypatch, checks):
    monkeypatch.setattr(simcore.runtime.runner, "REGISTERED", REGISTERED + (WaveWatch,))
    WaveWatch.waves = []
    k = simcore.RawModule(code=SRC).get_function("handoff")
    x = np.arange(128, dtype=np.int32) % 7
    gc.collect()
    gc.disable()
    try:
        k((2,), (128,), (np.zeros(256, np.int32), np.tile(x, 2)), checks=checks)
        assert WaveWatch.waves and all(ref() is None for ref in WaveWatch.waves)
    finally:
        gc.enable()
