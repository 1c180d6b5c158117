"""The race check keeps barrier and __syncwarp epochs modulo 256 (shared memory) or 1024 (global):
a stamp that many epochs old must not read as "this interval" (a legal kernel called racy), and
sweeping old stamps must lose no real race, in shared or global memory, in one block or across
blocks."""
import numpy as np
import pytest

import simcore

SHARED_BARRIERS = r"""
__global__ void reread(float *out, int iters, int racy_at)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t == 0) s[5] = 3.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int i = 0; i < iters; i++) {
        if (i == racy_at && t == 0) s[5] = 4.0f;
        if (i == iters - 1 && t == 7) acc += s[5];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}"""

SHARED_SYNCWARPS = SHARED_BARRIERS.replace("__syncthreads()", "__syncwarp()")

GLOBAL_BARRIERS = r"""
__global__ void reread(float *g, float *out, int iters, int racy_at, int other_block)
{
    int t = threadIdx.x, b = blockIdx.x;
    if (t == 0) g[b] = 3.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int i = 0; i < iters; i++) {
        if (i == racy_at && t == 0) g[b] = 4.0f;
        if (i == iters - 1 && t == 7) acc += g[other_block ? 1 - b : b];
        __syncthreads();
    }
    out[b * blockDim.x + t] = acc;
}"""


def _launch(src, block, iters, racy_at, *extra):
    out = np.zeros(2 * block, np.float32)
    args = ((np.zeros(2, np.float32),) if "float *g" in src else ()) + (out, np.int32(iters), np.int32(racy_at))
    simcore.RawKernel(src, "reread")((2,), (block,), args + tuple(np.int32(x) for x in extra))
    return out


@pytest.mark.parametrize("iters", [256, 257, 300, 1024, 1025, 1300, 2049])
@pytest.mark.parametrize("src,block", [(SHARED_BARRIERS, 64), (SHARED_SYNCWARPS, 32)], ids=["barriers", "syncwarps"])
def test_a_shared_value_reread_a_thousand_epochs_later_is_no_race(src, block, iters):
    out = _launch(src, block, iters, -1)
    assert out[7] == 3.0 and out[block + 7] == 3.0


@pytest.mark.parametrize("iters", [256, 300, 1024, 1300])
@pytest.mark.parametrize("src,block", [(SHARED_BARRIERS, 64), (SHARED_SYNCWARPS, 32)], ids=["barriers", "syncwarps"])
def test_a_race_after_a_thousand_epochs_is_still_found(src, block, iters):
    with pytest.raises(simcore.KernelFault) as e:
        _launch(src, block, iters, iters - 1)
    assert e.value.kind == "race" and "s[5]" in str(e.value)
    assert "line 10" in str(e.value) and "line 11" in str(e.value)


@pytest.mark.parametrize("iters", [1024, 1300])
def test_a_global_value_reread_by_its_own_block_a_thousand_barriers_later_is_no_race(iters):
    out = _launch(GLOBAL_BARRIERS, 64, iters, -1, 0)
    assert out[7] == 3.0 and out[64 + 7] == 3.0


@pytest.mark.parametrize("iters", [1024, 1300])
def test_a_global_race_between_blocks_survives_a_thousand_barriers(iters):
    """The sweep moves an old global stamp's epoch but keeps its thread: another block's read,
    however late, still races with it."""
    with pytest.raises(simcore.KernelFault) as e:
        _launch(GLOBAL_BARRIERS, 64, iters, -1, 1)
    assert e.value.kind == "race" and "between blocks" in str(e.value)
    assert "line 5" in str(e.value) and "line 10" in str(e.value)


def test_a_global_race_in_one_block_after_a_thousand_barriers_is_still_found():
    with pytest.raises(simcore.KernelFault) as e:
        _launch(GLOBAL_BARRIERS, 64, 1300, 1299, 0)
    assert e.value.kind == "race" and "g[" in str(e.value) and "between blocks" not in str(e.value)
