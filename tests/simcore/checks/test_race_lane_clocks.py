"""The race check orders two lanes of one warp only through warp syncs that named them: a
`__syncwarp(mask)`, a tile's `sync()` or a split `__activemask()` mask orders the lanes it names
and nobody else (a vector clock over the warp's lanes, simcore/checks/races.py). Legal warp code
that such kernels also contain (full __syncwarp(), shuffles, syncs inside a tile) stays clean."""
import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean


def _kernel(src, name="k"):
    return simcore.RawModule(code=src).get_function(name)


def _race(k, *args, **kw):
    f = fault_of(k, *args, **kw)
    assert isinstance(f, simcore.DataRace), f
    return f


# Each lane writes s[t], syncs with its group (the mask is per lane: two disjoint groups of one
# warp at one __syncwarp), then reads s[t ^ d]: ordered when t ^ d is in its group, a race when not.
GROUPS = r"""
extern "C" __global__ void k(int *out, int d)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int lane = t % 32;
    s[t] = t + 1;
    __syncwarp(MASK);
    out[t] = s[t ^ d];
}
"""
SHAPES = {
    # name: (mask as C, a partner in the group, a partner outside it)
    "odd_even": ("(lane & 1) ? 0xaaaaaaaau : 0x55555555u", 2, 1),
    "halves": ("lane < 16 ? 0x0000ffffu : 0xffff0000u", 8, 16),
    "quarters": ("0xffu << (lane & 24)", 4, 8),
    "pairs_of_lanes": ("3u << (lane & 30)", 1, 2),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_partial_mask_orders_its_own_lanes(shape):
    mask, inside, _ = SHAPES[shape]
    out = np.zeros(64, np.int32)
    run_clean(_kernel(GROUPS.replace("MASK", mask)), (1,), (64,), (out, np.int32(inside)))
    np.testing.assert_array_equal(out, (np.arange(64) ^ inside) + 1)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_partial_mask_does_not_order_the_other_lanes(shape):
    mask, _, outside = SHAPES[shape]
    f = _race(_kernel(GROUPS.replace("MASK", mask)), (1,), (64,), (np.zeros(64, np.int32), np.int32(outside)))
    assert "read-after-write" in str(f) and "orders only the lanes it names" in str(f)


TILES = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(int *out, int d)
{
    __shared__ int s[64];
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(cg::this_thread_block());
    int t = threadIdx.x;
    s[t] = t + 1;
    tile.sync();
    out[t] = s[t ^ d];
}
"""


@pytest.mark.parametrize("n", [4, 8, 16])
def test_a_tile_sync_orders_its_tile_only(n):
    k = _kernel(TILES.replace("<N>", f"<{n}>"))
    out = np.zeros(64, np.int32)
    run_clean(k, (1,), (64,), (out, np.int32(n // 2)))            # a lane of its own tile
    np.testing.assert_array_equal(out, (np.arange(64) ^ (n // 2)) + 1)
    _race(k, (1,), (64,), (np.zeros(64, np.int32), np.int32(n)))  # a lane of the next tile


# Lane 0 writes, then syncs with lane 1, and lane 1 with lane 2: lane 2's read is ordered
# (transitively). The other order of the two syncs tells lane 2 nothing of lane 0's write.
CHAIN = r"""
extern "C" __global__ void k(int *out, int chained)
{
    __shared__ int s[1];
    int t = threadIdx.x;
    if (t == 0) s[0] = 42;
    if (chained) {
        if (t < 2) __syncwarp(0x3);
        if (t == 1 || t == 2) __syncwarp(0x6);
    } else {
        if (t == 1 || t == 2) __syncwarp(0x6);
        if (t < 2) __syncwarp(0x3);
    }
    if (t == 2) out[0] = s[0];
}
"""


def test_a_chain_of_partial_syncs_orders_transitively():
    k = _kernel(CHAIN)
    out = np.zeros(1, np.int32)
    run_clean(k, (1,), (32,), (out, np.int32(1)))
    assert out[0] == 42
    f = _race(k, (1,), (32,), (np.zeros(1, np.int32), np.int32(0)))
    assert "read-after-write" in str(f)


# Readers of one warp folded in one record: every reader must be ordered before the write.
BROADCAST = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(int *out, int whole_warp_reads)
{
    __shared__ int s[64];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int t = threadIdx.x;
    int first = whole_warp_reads ? t & ~31 : t & ~15;    // the warp's or the tile's first element
    s[t] = t;
    __syncthreads();
    int v = s[first];
    tile.sync();
    if (t == first) s[first] = -1;
    out[t] = v;
}
"""


def test_readers_of_one_warp_are_all_ordered_by_their_tiles_syncs():
    k = _kernel(BROADCAST)
    out = np.zeros(64, np.int32)
    run_clean(k, (1,), (64,), (out, np.int32(0)))
    np.testing.assert_array_equal(out, np.arange(64) & ~15)
    f = _race(k, (1,), (64,), (np.zeros(64, np.int32), np.int32(1)))
    assert "write-after-read" in str(f)


# Legal warp code in a kernel with a partial sync (so the lane clocks are on): a warp reduction
# with full __syncwarp(), a shuffle reduction, a tile reduction with tile.sync() in its tile, in
# a block whose last warp has 16 live lanes (a full __syncwarp() names every live lane there).
LEGAL = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(const int *in, int *warp_sums, int *shfl_sums, int *tile_sums)
{
    __shared__ int s[96];
    __shared__ int u[96];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int t = threadIdx.x, lane = t % 32, r = tile.thread_rank();
    s[t] = in[t];
    u[t] = in[t];
    if (t + 16 >= blockDim.x && lane < 16) s[t + 16] = 0;   // the tail warp's missing half
    __syncwarp();
    for (int o = 16; o > 0; o /= 2) {               // warp reduction, full __syncwarp()
        int v = lane < o ? s[t + o] : 0;
        __syncwarp();
        s[t] += v;
        __syncwarp();
    }
    if (lane == 0) warp_sums[t / 32] = s[t];
    if (t < 64) {                                   // shuffles (the full warps)
        int x = in[t];
        for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
        if (lane == 0) shfl_sums[t / 32] = x;
    }
    for (int o = 8; o > 0; o /= 2) {                // tile reduction, tile.sync() in its tile
        int v = r < o ? u[t + o] : 0;
        tile.sync();
        u[t] += v;
        tile.sync();
    }
    if (r == 0) tile_sums[t / 16] = u[t];
}
"""


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
def test_legal_warp_code_stays_clean_with_lane_clocks(schedule):
    x = np.arange(1, 81, dtype=np.int32)
    full = np.concatenate([x, np.zeros(16, np.int32)])
    warp_sums, shfl_sums, tile_sums = (np.zeros(3, np.int32), np.zeros(2, np.int32), np.zeros(5, np.int32))
    run_clean(_kernel(LEGAL), (1,), (80,), (x, warp_sums, shfl_sums, tile_sums), schedule=schedule)
    np.testing.assert_array_equal(warp_sums, full.reshape(3, 32).sum(axis=1))
    np.testing.assert_array_equal(shfl_sums, x[:64].reshape(2, 32).sum(axis=1))
    np.testing.assert_array_equal(tile_sums, x.reshape(5, 16).sum(axis=1))


# Hundreds of tile syncs between the write and the read (the clocks must not wrap), and a lane
# that exited before a full __syncwarp() of the others (its write is ordered, as before).
LONG = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(int *out, int iters, int d, int full_sync)
{
    __shared__ int s[32];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int t = threadIdx.x;
    s[t] = t + 1;
    if (full_sync) __syncwarp();
    for (int i = 0; i < iters; i++)
        tile.sync();
    out[t] = s[t ^ d];
}
"""


@pytest.mark.parametrize("iters", [1, 255, 256, 300, 1030])
def test_many_tile_syncs_keep_the_order_exact(iters):
    k = _kernel(LONG)
    out = np.zeros(32, np.int32)
    run_clean(k, (1,), (32,), (out, np.int32(iters), np.int32(4), np.int32(0)))     # own tile
    np.testing.assert_array_equal(out, (np.arange(32) ^ 4) + 1)
    run_clean(k, (1,), (32,), (out, np.int32(iters), np.int32(16), np.int32(1)))    # a full sync first
    np.testing.assert_array_equal(out, (np.arange(32) ^ 16) + 1)
    _race(k, (1,), (32,), (np.zeros(32, np.int32), np.int32(iters), np.int32(16), np.int32(0)))


EXITED = r"""
extern "C" __global__ void k(int *out, unsigned mask)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t + 1;
    if (t >= 24) return;
    __syncwarp(mask);
    out[t] = s[t + 8];
}
"""


def test_a_sync_orders_the_exited_lanes_its_mask_names_and_no_others():
    k = _kernel(EXITED)
    out = np.zeros(24, np.int32)
    run_clean(k, (1,), (32,), (out, np.uint32(0xffffffff)))
    np.testing.assert_array_equal(out, np.arange(8, 32) + 1)
    # 0x00ffffff names every lane still live, but not lanes 24-31: whether they have exited (their
    # write done) when lanes 0-23 pass the sync is up to the schedule, so it is a race in every one
    for schedule in ("lockstep", "round_robin", "adversarial", "random"):
        for seed in range(4 if schedule == "random" else 1):
            _race(k, (1,), (32,), (np.zeros(24, np.int32), np.uint32(0x00ffffff)), schedule=schedule, seed=seed)


def test_a_partial_sync_after_the_other_lanes_exit_is_a_race_in_every_schedule():
    """The audit's case: lanes 16-31 write and exit; lanes 0-15 sync among themselves and read
    what 16-31 wrote. Under `random` lanes 16-31 sometimes exit before the sync: still a race."""
    k = _kernel(r"""
extern "C" __global__ void k(const int *in, int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane];
    if (lane < 16) { __syncwarp(0x0000ffff); out[lane] = s[lane + 16]; }
}
""")
    for schedule in ("lockstep", "round_robin", "adversarial", "random"):
        for seed in range(6 if schedule == "random" else 1):
            _race(k, (1,), (32,), (np.arange(32, dtype=np.int32), np.zeros(16, np.int32)),
                  schedule=schedule, seed=seed)


GLOBAL = r"""
extern "C" __global__ void k(int *g, int *out, unsigned mask)
{
    int t = threadIdx.x;
    if (t == 1) out[0] = g[0];
    if (t == 0 || t == 2) __syncwarp(mask);
    if (t == 2) g[0] = 2;
}
"""


def test_global_memory_partial_mask():
    k = _kernel(GLOBAL)
    f = _race(k, (1,), (32,), (np.ones(1, np.int32), np.zeros(1, np.int32), np.uint32(0x5)))
    assert "write-after-read" in str(f) and "global memory g[0]" in str(f)


# Readers at different points: thread 1 reads, then syncs with thread 0; thread 2 reads, then
# syncs with thread 0; thread 0's write is ordered after both reads. A third reader that synced
# with nobody races with the write.
PAIRWISE = r"""
extern "C" __global__ void k(int *out, int third_reader)
{
    __shared__ int s[1];
    int t = threadIdx.x;
    if (t == 0) s[0] = 5;
    __syncthreads();
    int v = 0;
    if (t == 1) v = s[0];
    if (t < 2) __syncwarp(0x3);
    if (t == 2 || (t == 3 && third_reader)) v = s[0];
    if (t == 0 || t == 2) __syncwarp(0x5);
    if (t == 0) s[0] = 7;
    out[t] = v;
}
"""


def test_readers_ordered_by_different_syncs_are_all_ordered_before_the_write():
    k = _kernel(PAIRWISE)
    out = np.zeros(32, np.int32)
    run_clean(k, (1,), (32,), (out, np.int32(0)))
    np.testing.assert_array_equal(out[:4], [0, 5, 5, 0])
    f = _race(k, (1,), (32,), (np.zeros(32, np.int32), np.int32(1)))
    assert "write-after-read" in str(f)



EXITED_PART = r"""
extern "C" __global__ void k(int *out, unsigned mask, int d)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t + 1;
    if (t >= 8 && t < 16) return;          // lanes 8-15 exit after their write
    if (t < 8) {
        __syncwarp(mask);
        out[t] = s[t + d];
    }
}
"""


def test_a_partial_sync_orders_the_exited_lanes_it_names():
    k = _kernel(EXITED_PART)
    out = np.zeros(8, np.int32)
    run_clean(k, (1,), (32,), (out, np.uint32(0xffff), np.int32(8)))      # lanes 8-15: named, exited
    np.testing.assert_array_equal(out, np.arange(8, 16) + 1)
    # lanes 16-23 are still live (they exit at the kernel's end) and not named: a race
    _race(k, (1,), (32,), (np.zeros(8, np.int32), np.uint32(0xffff), np.int32(16)))
