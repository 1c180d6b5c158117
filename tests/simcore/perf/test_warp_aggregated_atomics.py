"""Global atomics nvcc aggregates per warp (simcore/perf/counters.py warp_aggregated_sites).

The sm_90 SASS of `atomicAdd(count, 1)`, `atomicAdd(count, c)` and `atomicMax(&slot[blockIdx.x %
S], v)` with the old value unused is VOTEU.ANY + UFLO + POPC or REDUX, then one REDG by the warp's
leader; an address read from memory (key[i]), a lane's own address, a float add or an atomic whose
old value is used stays one atomic per lane (docs/timing-validation.md, round 7). The timing
model must count what the GPU runs."""
import numpy as np
import pytest

import simcore
from simcore.perf.counters import SHARED_AGGREGATED_OPS, warp_aggregated_sites

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


SHARED_SOURCE = r"""
extern "C" __global__ void k(const int *x, const int *key, int *out, int n)
{
    __shared__ int word;
    __shared__ int words[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32)
        words[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        word = 0;
    __syncthreads();
    BODY
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = word + words[0];
}
"""

# (body, aggregated by the rule for shared memory)
SHARED_BODIES = {
    "max of every lane on a __shared__ scalar": ("if (i < n) atomicMax(&word, x[i]);", True),
    "min of every lane on a __shared__ scalar": ("if (i < n) atomicMin(&word, x[i]);", True),
    "add of a value on a constant word": ("if (i < n) atomicAdd(&words[3], x[i]);", True),
    "min on a word read from memory": ("if (i < n) atomicMin(&words[key[i]], x[i]);", False),
    "max on the lane's own word": ("if (i < n) atomicMax(&words[threadIdx.x % 32], x[i]);", False),
    "min whose old value is used": ("if (i < n) { int old = atomicMin(&word, x[i]); if (old == -5) words[1] = 1; }",
                                    False),
}


def _shared_kernel(body):
    return simcore.RawKernel(SHARED_SOURCE.replace("BODY", body), "k")


@pytest.mark.parametrize("name", list(SHARED_BODIES))
def test_which_shared_atomics_are_aggregated(name):
    body, aggregated = SHARED_BODIES[name]
    assert bool(warp_aggregated_sites(_shared_kernel(body).program, SHARED_AGGREGATED_OPS)) == aggregated


def test_a_block_wide_shared_min_on_one_word_costs_about_one_operation_per_warp():
    # every lane of a 1024-thread block on one shared word: as 32 lane operations per warp (the
    # address read from memory, all keys 0) the shared unit is the bound; aggregated it is not
    n, block = 1 << 20, 1024
    args = (np.arange(n, dtype=np.int32), np.zeros(n, np.int32), np.zeros(n // block, np.int32), np.int32(n))
    per_lane = _shared_kernel(SHARED_BODIES["min on a word read from memory"][0]).estimate((n // block,), (block,), args)
    per_warp = _shared_kernel(SHARED_BODIES["min of every lane on a __shared__ scalar"][0]).estimate(
        (n // block,), (block,), args)
    assert per_lane.bound == "shared"
    assert per_warp.breakdown["shared"] < per_lane.breakdown["shared"] / 8
