"""Blocks are not ordered by anything inside a kernel, except the fence-and-flag protocol.

CUDA's threadFenceReduction sample: each block writes its partial sum, runs __threadfence()
and takes a ticket with atomicInc; the block that takes the last ticket reads every partial.
Legal with the fence; without it, the last block may read stale partials (a race).
"""
import numpy as np
import pytest

import simcore

SRC = r"""
extern "C" __global__ void sum(const float *in, float *partial, float *out, unsigned int *count, int n)
{
    __shared__ float s[128];
    __shared__ bool amLast;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned int ticket = atomicInc(count, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast && t == 0) {
        float total = 0.0f;
        for (int b = 0; b < gridDim.x; b++) total += partial[b];
        out[0] = total;
        count[0] = 0;
    }
}
"""


def launch(src, schedule="lockstep"):
    x = np.arange(1000, dtype=np.float32) % 7
    partial = np.zeros(8, np.float32)
    out = np.zeros(1, np.float32)
    count = np.zeros(1, np.uint32)
    simcore.RawKernel(src, "sum")((8,), (128,), (x, partial, out, count, np.int32(1000)), schedule=schedule)
    return out[0], float(x.sum())


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial"])
def test_fence_then_ticket_is_legal(schedule):
    got, expected = launch(SRC, schedule)
    assert got == expected


def test_without_the_fence_it_is_a_race_between_blocks():
    with pytest.raises(simcore.DataRace) as info:
        launch(SRC.replace("__threadfence();", ""))
    assert info.value.report.get("cross_block") is True
    assert "different blocks" in str(info.value)


def test_reading_another_blocks_output_without_protocol_is_a_race():
    src = r"""
    extern "C" __global__ void peek(int *stamp, int *seen)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        stamp[i] = blockIdx.x + 1;
        __syncthreads();
        seen[i] = stamp[(i + blockDim.x) % (gridDim.x * blockDim.x)];
    }
    """
    stamp, seen = np.zeros(256, np.int32), np.zeros(256, np.int32)
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(src, "peek")((4,), (64,), (stamp, seen))
