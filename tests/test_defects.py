"""Defects found by trying simcore on real kernels (issue 10), each pinned by a test that failed
before its fix."""
import numpy as np
import pytest

import simcore

# ---------------------------------------------------------------- defects 2 and 3: readers of
# several blocks are folded into one shadow record; the record must keep that they span blocks.

READ_THEN_ONE_BLOCK_WRITES = r"""
extern "C" __global__ void k(float *a, float *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = a[0];   // every thread of every block reads a[0]
    __syncthreads();                                     // orders this block's reads only
    if (blockIdx.x == WRITER && threadIdx.x == 0) a[0] = 1.0f;
}
"""


def launch_readers(writer, blocks, threads, schedule="lockstep"):
    a = np.zeros(1, np.float32)
    out = np.zeros(blocks * threads, np.float32)
    simcore.RawKernel(READ_THEN_ONE_BLOCK_WRITES.replace("WRITER", str(writer)), "k")(
        (blocks,), (threads,), (a, out), schedule=schedule)


@pytest.mark.parametrize("writer, blocks, threads", [(1, 2, 64), (3, 4, 32), (3, 4, 64), (0, 2, 64), (1, 4, 32)])
@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
def test_a_write_after_reads_of_several_blocks_is_a_race_between_blocks(writer, blocks, threads, schedule):
    with pytest.raises(simcore.DataRace) as info:
        launch_readers(writer, blocks, threads, schedule)
    assert info.value.report.get("cross_block") is True
    assert "different blocks" in str(info.value)
    assert "put __syncthreads() between" not in str(info.value)     # cannot order two blocks


@pytest.mark.parametrize("threads", [32, 64])
def test_one_block_reading_then_writing_after_its_barrier_is_legal(threads):
    launch_readers(0, 1, threads)


def test_a_reader_of_another_block_in_an_earlier_barrier_interval_is_kept():
    """Block 0 reads in its first interval, block 1 in its second: barrier intervals of two
    blocks are not comparable, so block 0's read must survive block 1's."""
    src = r"""
    extern "C" __global__ void k(float *a, float *out)
    {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (blockIdx.x == 0) out[t] = a[0];
        __syncthreads();
        if (blockIdx.x == 1) out[t] = a[0];
        __syncthreads();
        if (blockIdx.x == 1 && threadIdx.x == 0) a[0] = 1.0f;
    }
    """
    a, out = np.zeros(1, np.float32), np.zeros(64, np.float32)
    with pytest.raises(simcore.DataRace) as info:
        simcore.RawKernel(src, "k")((2,), (32,), (a, out))
    assert info.value.report.get("cross_block") is True


def test_reads_of_several_blocks_alone_are_no_race():
    src = r"""
    extern "C" __global__ void k(const float *a, float *out)
    {
        __shared__ float s[64];
        s[threadIdx.x] = a[0] + a[threadIdx.x % 4];
        __syncthreads();
        out[blockIdx.x * blockDim.x + threadIdx.x] = s[63 - threadIdx.x];
    }
    """
    a, out = np.arange(4, dtype=np.float32), np.zeros(256, np.float32)
    simcore.RawKernel(src.replace("const ", ""), "k")((4,), (64,), (a, out))
    assert out[0] == a[0] + a[3]
