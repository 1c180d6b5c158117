"""Global atomics nvcc aggregates per warp (simcore/perf/counters.py warp_aggregated_sites).

The sm_90 SASS of `atomicAdd(count, 1)`, `atomicAdd(count, c)` and `atomicMax(&slot[blockIdx.x %
S], v)` with the old value unused is VOTEU.ANY + UFLO + POPC or REDUX, then one REDG by the warp's
leader; an address read from memory (key[i]), a lane's own address, a float add or an atomic whose
old value is used stays one atomic per lane (docs/timing-validation.md, round 7). The timing
model must count what the GPU runs."""
import numpy as np
import pytest

import simcore
from simcore.perf.counters import warp_aggregated_sites

# (kernel body after `int i = blockIdx.x * blockDim.x + threadIdx.x;`, aggregated by nvcc)
BODIES = {
    "add of 1 to a parameter's word": ("if (i < n && x[i] > 0.0f) atomicAdd(count, 1);", True),
    "add of a lane's value": ("if (i < n) atomicAdd(count, (int)x[i]);", True),
    "max on the block's slot": ("if (i < n) atomicMax(&count[blockIdx.x % 8], (int)x[i]);", True),
    "add to a word read from memory": ("if (i < n) atomicAdd(&count[key[i]], 1);", False),
    "add to the lane's own word": ("if (i < n) atomicAdd(&count[i % 8], 1);", False),
    "old value used": ("if (i < n) { int old = atomicAdd(count, 1); if (old == -5) key[0] = old; }", False),
    "float add": ("if (i < n) atomicAdd(fcount, x[i]);", False),
    "a parameter the kernel changes": ("count += threadIdx.x & 1; if (i < n) atomicAdd(count, 1);", False),
}


def _source(body):
    return ("extern \"C\" __global__ void k(const float *x, int *key, int *count, float *fcount, int n)\n"
            "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    " + body + "\n}\n")


@pytest.mark.parametrize("name", list(BODIES))
def test_which_atomics_are_aggregated(name):
    body, aggregated = BODIES[name]
    k = simcore.RawKernel(_source(body), "k")
    assert bool(warp_aggregated_sites(k.program)) == aggregated


def _estimate(body, n=1 << 16, block=256):
    k = simcore.RawKernel(_source(body), "k")
    args = (np.ones(n, np.float32), np.zeros(n, np.int32), np.zeros(8, np.int32), np.zeros(1, np.float32), np.int32(n))
    return k.estimate((n // block,), (block,), args)


def test_an_aggregated_count_costs_one_atomic_per_warp():
    # one address, every lane: per lane (old value used) the L2 turns 32 atomics around per warp,
    # aggregated it turns one (0.733 ns each on the H200): the time of the atomics falls about 32x
    per_lane = _estimate(BODIES["old value used"][0])
    per_warp = _estimate(BODIES["add of 1 to a parameter's word"][0])
    assert per_lane.bound == "atomics"
    assert per_warp.time_ms < per_lane.time_ms / 4
