"""Cooperative Groups: the same verdicts as the intrinsics they wrap, and the right numbers.

Each CG kernel has an intrinsic twin with the same line layout (the CG header lines are
comments in the twin): a fault must have the same kind, the same line and the same lines
involved; a defined kernel must give the twin's (or numpy's) results exactly."""
import functools

import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean

HEADER_CG = "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
HEADER_PLAIN = "// cooperative_groups.h\n// cooperative_groups/reduce.h\n// namespace\n"


@functools.lru_cache(maxsize=None)
def kernel(src, name="k"):
    return simcore.RawModule(code=src).get_function(name)


def same_fault(cg_body, plain_body, grid, block, make_args, **kw):
    """The CG kernel and its intrinsic twin fault alike; returns the CG fault."""
    f_cg = fault_of(kernel(HEADER_CG + cg_body), grid, block, make_args(), **kw)
    f_plain = fault_of(kernel(HEADER_PLAIN + plain_body), grid, block, make_args(), **kw)
    assert f_cg.kind == f_plain.kind
    assert f_cg.line == f_plain.line
    assert sorted(f_cg.report["lines"]) == sorted(f_plain.report["lines"])
    return f_cg


# ============================================================== block.sync() in if/else (the seeds' pattern)
IFELSE = r"""
extern "C" __global__ void k(int *out, int split)
{
    __shared__ int s[1024];
    SETUP
    int t = threadIdx.x;
    s[t] = t;
    if (t < split) {
        BARRIER;
        out[t] = s[(t + 1) % blockDim.x];
    } else {
        BARRIER;
        out[t] = s[(t + 1) % blockDim.x] + 1000;
    }
}
"""


def _ifelse(barrier, setup="cg::thread_block block = cg::this_thread_block();"):
    return IFELSE.replace("BARRIER", barrier).replace("SETUP", setup)


@pytest.mark.parametrize("barrier", ["block.sync()", "cg::sync(block)", "cg::this_thread_block().sync()"])
@pytest.mark.parametrize("split", [128, 100, 1])
def test_divergent_block_sync_is_reported_like_syncthreads(barrier, split):
    f = same_fault(_ifelse(barrier), _ifelse("__syncthreads()", setup=""), (1,), (256,),
                   lambda: (np.zeros(256, np.int32), np.int32(split)))
    assert f.kind == "divergent_barrier"
    assert sorted(f.report["lines"]) == [12, 15]
    assert ("in block" if split % 32 == 0 else f"in warp {split // 32}") in str(f)
    assert barrier.split("(")[0].replace("cg::", "") in str(f).replace("cg::", "")   # named as written


def test_divergent_block_sync_deadlocks_under_stack_model_like_syncthreads():
    f = same_fault(_ifelse("block.sync()"), _ifelse("__syncthreads()", setup=""), (1,), (256,),
                   lambda: (np.zeros(256, np.int32), np.int32(100)), model="stack")
    assert f.kind == "deadlock"


def test_uniform_block_sync_is_exact():
    out = np.zeros(256, np.int32)
    run_clean(kernel(HEADER_CG + _ifelse("block.sync()")), (1,), (256,), (out, np.int32(256)))
    np.testing.assert_array_equal(out, (np.arange(256) + 1) % 256)


TAIL = r"""
extern "C" __global__ void k(float *out, const float *in, int n)
{
    __shared__ float tile[256];
    SETUP
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tile[threadIdx.x] = in[i];
        BARRIER;
    }
    BARRIER;
    if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
"""


def test_guarded_block_sync_with_work_after_faults_like_syncthreads():
    cg_src = TAIL.replace("SETUP", "auto block = cg::this_thread_block();").replace("BARRIER", "block.sync()")
    plain = TAIL.replace("SETUP", "").replace("BARRIER", "__syncthreads()")
    f = same_fault(cg_src, plain, (2,), (256,),
                   lambda: (np.zeros(512, np.float32), np.arange(512, dtype=np.float32), np.int32(300)))
    assert f.kind in ("divergent_barrier", "deadlock")


# ============================================================== tile shuffles with exited lanes
EXITED = r"""
extern "C" __global__ void k(const int *in, int *out, int n)
{
    SETUP
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int right = SHFL_DOWN;
    STORE;
}
"""


@pytest.mark.parametrize("setup", [
    "cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());",
    "auto tile = cg::tiled_partition<32>(cg::this_thread_block());",
])
def test_tile_shfl_down_reading_an_exited_lane_faults_like_full_mask_shuffle(setup):
    def src(setup, shfl):
        return EXITED.replace("SETUP", setup).replace("SHFL_DOWN", shfl).replace("STORE", "out[i] = v + right")
    f = same_fault(src(setup, "tile.shfl_down(v, 1)"), src("", "__shfl_down_sync(0xffffffffu, v, 1)"),
                   (2,), (64,), lambda: (np.arange(128, dtype=np.int32), np.zeros(128, np.int32), np.int32(99)))
    assert f.kind == "undefined_value"
    assert f.line == 12                      # the store of the undefined value
    assert "tile.shfl_down() on line 11" in str(f)


def test_tile_shfl_down_from_exited_lane_unused_is_fine_like_full_mask_shuffle():
    def src(setup, shfl):
        return EXITED.replace("SETUP", setup).replace("SHFL_DOWN", shfl).replace(
            "STORE", "int r = v; if (i + 1 < n && (threadIdx.x & 31) != 31) r = v + right; out[i] = r")
    setup = "cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());"
    outs = []
    for s in (src(setup, "tile.shfl_down(v, 1)"), src("", "__shfl_down_sync(0xffffffffu, v, 1)")):
        out = np.full(128, -1, np.int32)
        run_clean(kernel(HEADER_CG + s), (2,), (64,), (np.arange(128, dtype=np.int32), out, np.int32(99)))
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    i = np.arange(99)
    np.testing.assert_array_equal(outs[0][:99], np.where((i + 1 < 99) & (i % 32 != 31), 2 * i + 1, i))


@pytest.mark.parametrize("cg_call,intrinsic", [
    ("tile.shfl(v, 0)", "__shfl_sync(0xffffffff, v, 0)"),
    ("tile.shfl_down(v, 1)", "__shfl_down_sync(0xffffffff, v, 1)"),
    ("tile.any(v > 3)", "__any_sync(0xffffffff, v > 3)"),
    ("cg::reduce(tile, v, cg::plus<int>())", "__shfl_xor_sync(0xffffffff, v, 16)"),
])
def test_tile_collective_with_a_lane_in_the_other_branch_is_reported_like_the_full_mask_intrinsic(cg_call,
                                                                                                   intrinsic):
    body = r"""
extern "C" __global__ void k(const int *in, int *out)
{
    SETUP
    int v = in[threadIdx.x];
    if (threadIdx.x % 32 < 16)
        v = CALL;
    out[threadIdx.x] = v;
}
"""
    cg_src = body.replace("SETUP", "auto tile = cg::tiled_partition<32>(cg::this_thread_block());") \
        .replace("CALL", cg_call)
    f = same_fault(cg_src, body.replace("SETUP", "").replace("CALL", intrinsic), (1,), (32,),
                   lambda: (np.arange(32, dtype=np.int32), np.zeros(32, np.int32)))
    assert f.kind == "invalid_mask" and f.line == 10
    assert cg_call.split("(")[0] + "()" in str(f)


def test_tile_sync_in_a_divergent_branch_is_reported_like_syncwarp():
    body = r"""
extern "C" __global__ void k(int *out)
{
    SETUP
    int t = threadIdx.x;
    if (t % 32 < 16) {
        SYNC;
        out[t] = 1;
    }
    out[t] += 0;
}
"""
    cg_src = body.replace("SETUP", "auto tile = cg::tiled_partition<32>(cg::this_thread_block());") \
        .replace("SYNC", "tile.sync()")
    plain = body.replace("SETUP", "").replace("SYNC", "__syncwarp()")
    f = same_fault(cg_src, plain, (1,), (64,), lambda: (np.zeros(64, np.int32),))
    assert "tile.sync" in str(f)


# ============================================================== reductions give the right numbers
WARP_SUM = r"""
extern "C" __global__ void k(float *out, const float *in)
{
    SETUP
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += SHFL;
    if ((threadIdx.x & 31) == 0)
        out[i / 32] = v;
}
"""


def test_tile_shfl_down_reduction_is_bitwise_the_intrinsic_one():
    x = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    outs = []
    for setup, shfl in (("cg::thread_block_tile<32> g = cg::tiled_partition<32>(cg::this_thread_block());",
                         "g.shfl_down(v, offset)"), ("", "__shfl_down_sync(0xffffffff, v, offset)")):
        out = np.zeros(8, np.float32)
        run_clean(kernel(HEADER_CG + WARP_SUM.replace("SETUP", setup).replace("SHFL", shfl)), (2,), (128,), (out, x))
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], x.reshape(8, 32).astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)


REDUCE = HEADER_CG + r"""
extern "C" __global__ void k(const int *in, int *sums, int *mins, int *maxs, int *xors)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    sums[i] = cg::reduce(tile, v, cg::plus<int>());
    mins[i] = cg::reduce(tile, v, cg::less<int>());
    maxs[i] = cg::reduce(tile, v, cg::greater<int>());
    xors[i] = cg::reduce(tile, v, cg::bit_xor<int>());
}
"""


@pytest.mark.parametrize("tile", [32, 16, 8, 4, 2, 1])
def test_tile_reduce_matches_numpy(tile):
    x = np.random.default_rng(tile).integers(-1000, 1000, 256).astype(np.int32)
    outs = [np.zeros(256, np.int32) for _ in range(4)]
    run_clean(kernel(REDUCE.replace("TILE", str(tile))), (2,), (128,), (x, *outs))
    groups = x.reshape(-1, tile)
    for out, ref in zip(outs, (groups.sum(1), groups.min(1), groups.max(1), np.bitwise_xor.reduce(groups, 1))):
        np.testing.assert_array_equal(out, np.repeat(ref, tile))


def test_float_tile_reduce_matches_numpy():
    src = HEADER_CG + r"""
extern "C" __global__ void k(const float *in, float *out)
{
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    float s = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<float>());
    if (tile.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = s;
}
"""
    x = np.random.default_rng(5).random(512, dtype=np.float32)
    out = np.zeros(16, np.float32)
    run_clean(kernel(src), (4,), (128,), (x, out))
    np.testing.assert_allclose(out, x.reshape(16, 32).astype(np.float64).sum(1), rtol=1e-5)


def test_block_sum_with_tiles_and_shared_memory_matches_numpy():
    src = HEADER_CG + r"""
__device__ int tile_sum(cg::thread_block_tile<32> g, int v)
{
    for (int d = g.size() / 2; d > 0; d /= 2) v += g.shfl_down(v, d);
    return v;
}

extern "C" __global__ void k(const int *in, int *total, int n)
{
    __shared__ int partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * block.size() + block.thread_rank();
    int v = tile_sum(tile, i < n ? in[i] : 0);
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0;
        v = tile_sum(tile, v);
        if (block.thread_rank() == 0) atomicAdd(total, v);
    }
}
"""
    x = np.random.default_rng(9).integers(-100, 100, 1000).astype(np.int32)
    total = np.zeros(1, np.int32)
    run_clean(kernel(src), (4,), (320,), (x, total, np.int32(1000)))
    assert total[0] == x.sum()


# ============================================================== small tiles: width, ballot, ranks
def test_sixteen_lane_tiles_shuffle_vote_and_rank_within_the_tile():
    src = HEADER_CG + r"""
extern "C" __global__ void k(const int *in, int *down, unsigned *ballot, int *any, int *all, int *rank,
                             int *meta)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    int i = threadIdx.x;
    int v = in[i];
    down[i] = t16.shfl_down(v, 3);
    ballot[i] = t16.ballot(v > 0);
    any[i] = t16.any(v > 900);
    all[i] = t16.all(v > -900);
    rank[i] = t16.thread_rank() + 100 * t16.size();
    meta[i] = t16.meta_group_rank() + 100 * t16.meta_group_size();
}
"""
    x = np.random.default_rng(2).integers(-1000, 1000, 96).astype(np.int32)
    outs = [np.zeros(96, np.int32), np.zeros(96, np.uint32)] + [np.zeros(96, np.int32) for _ in range(4)]
    run_clean(kernel(src), (1,), (96,), (x, *outs))
    down, ballot, any_, all_, rank, meta = outs
    g = x.reshape(6, 16)
    r = np.arange(16)
    exp_down = np.where(r + 3 < 16, np.roll(g, -3, axis=1), g)
    np.testing.assert_array_equal(down, exp_down.ravel())
    bits = ((g > 0) << r).sum(1).astype(np.uint32)
    np.testing.assert_array_equal(ballot, np.repeat(bits, 16))
    np.testing.assert_array_equal(any_, np.repeat((g > 900).any(1), 16).astype(np.int32))
    np.testing.assert_array_equal(all_, np.repeat((g > -900).all(1), 16).astype(np.int32))
    np.testing.assert_array_equal(rank, np.tile(r, 6) + 1600)
    np.testing.assert_array_equal(meta, np.repeat(np.arange(6), 16) + 600)


def test_dynamic_tiled_partition_is_a_thread_group():
    src = HEADER_CG + r"""
extern "C" __global__ void k(int *out)
{
    cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), 8);
    cg::sync(tile);
    out[threadIdx.x] = cg::thread_rank(tile) + 100 * cg::group_size(tile);
}
"""
    out = np.zeros(64, np.int32)
    run_clean(kernel(src), (1,), (64,), (out,))
    np.testing.assert_array_equal(out, np.arange(64) % 8 + 800)


# ============================================================== coalesced groups
COALESCED = HEADER_CG + r"""
extern "C" __global__ void k(const int *in, int *size, int *rank, int *first, int *next, int *sum, unsigned *bal)
{
    int i = threadIdx.x;
    int v = in[i];
    if (v % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        size[i] = active.size();
        rank[i] = active.thread_rank();
        first[i] = active.shfl(v, 0);
        next[i] = active.shfl_down(v, 1);
        sum[i] = cg::reduce(active, v, cg::plus<int>());
        bal[i] = active.ballot(v > 0);
        active.sync();
    }
}
"""


def test_coalesced_group_is_the_active_lanes():
    x = np.random.default_rng(4).integers(-50, 50, 64).astype(np.int32)
    outs = [np.full(64, -7, np.int32) for _ in range(5)] + [np.zeros(64, np.uint32)]
    run_clean(kernel(COALESCED), (1,), (64,), (x, *outs))
    size, rank, first, nxt, total, bal = outs
    for w in range(2):
        lanes = np.flatnonzero(x[32 * w:32 * w + 32] % 3 == 0) + 32 * w
        vals = x[lanes]
        np.testing.assert_array_equal(size[lanes], len(lanes))
        np.testing.assert_array_equal(rank[lanes], np.arange(len(lanes)))
        np.testing.assert_array_equal(first[lanes], vals[0])
        np.testing.assert_array_equal(nxt[lanes], np.append(vals[1:], vals[-1]))
        np.testing.assert_array_equal(total[lanes], vals.sum())
        np.testing.assert_array_equal(bal[lanes], ((vals > 0) << np.arange(len(vals))).sum())
    others = x % 3 != 0
    assert (size[others] == -7).all()


# ============================================================== spellings
def test_using_namespace_and_auto():
    src = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
using namespace cooperative_groups;
extern "C" __global__ void k(int *out)
{
    thread_block block = this_thread_block();
    auto tile = tiled_partition<32>(block);
    thread_block_tile<4> quad = tiled_partition<4>(tile);
    sync(block);
    out[block.thread_rank()] = reduce(quad, (int)threadIdx.x, plus<int>()) + 1000 * quad.meta_group_rank();
}
"""
    out = np.zeros(64, np.int32)
    run_clean(kernel(src), (1,), (64,), (out,))
    t = np.arange(64)
    np.testing.assert_array_equal(out, (t // 4 * 4 * 4 + 6) + 1000 * (t % 32 // 4))


def test_group_index_and_thread_index():
    src = HEADER_CG + r"""
using cg::thread_block;
extern "C" __global__ void k(int *out)
{
    thread_block b = cg::this_thread_block();
    out[b.group_index().x * b.dim_threads().x + b.thread_index().x] = b.group_index().x * 10 + b.thread_index().x;
}
"""
    out = np.zeros(12, np.int32)
    run_clean(kernel(src), (3,), (4,), (out,))
    np.testing.assert_array_equal(out, np.repeat(np.arange(3), 4) * 10 + np.tile(np.arange(4), 3))


def test_cg_reduce_needs_its_header_as_in_cuda():
    src = ('#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\nextern "C" __global__ void k(int *out)\n{\n'
           '    out[0] = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), 1, cg::plus<int>());\n}\n')
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src)
    assert "cg::reduce needs #include <cooperative_groups/reduce.h>" in str(info.value)
    assert info.value.line == 5
    with pytest.raises(simcore.CompileError, match="needs #include <cooperative_groups.h>"):
        simcore.RawModule(code=src.replace("#include <cooperative_groups.h>", ""))


@pytest.mark.parametrize("body,words", [
    ("cg::thread_block b = cg::this_thread_block(); cg::grid_barrier(b);", "cg::grid_barrier"),
    ("cg::thread_block_tile<3> t = cg::tiled_partition<3>(cg::this_thread_block());", "1, 2, 4, 8, 16"),
    ("cg::thread_group t = cg::tiled_partition(cg::this_thread_block(), 32); out[0] = t.shfl(1, 0);",
     "thread_group has no member function shfl"),
    ("cg::thread_block_tile<16> t = cg::tiled_partition<32>(cg::this_thread_block());",
     "thread_block_tile<16> needs cg::tiled_partition<16>"),
    ("cg::thread_block b = cg::this_thread_block(); out[0] = cg::reduce(b, 1, cg::plus<int>());",
     "cg::reduce takes a thread_block_tile"),
    ("cg::thread_block b = cg::this_thread_block(); b.shfl_down(1, 1);", "thread_block has no member function"),
    ("auto t = cg::tiled_partition<32>(cg::this_thread_block()); out[0] = cg::reduce(t, 1, cg::plus<float>());",
     "the value is int but the operator works on float"),
    ("cg::thread_block b;", "must be initialised"),
])
def test_unsupported_uses_are_named(body, words):
    """(Each is a compile error with nvcc too, or outside simcore's subset.)"""
    src = HEADER_CG + 'extern "C" __global__ void k(int *out)\n{\n    ' + body + "\n}\n"
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src)
    assert words in str(info.value)
    assert info.value.line == 6


def test_ballot_with_half_warp_masks_sees_only_its_own_half():
    # the engine fix under the 16-thread tiles' ballot: both halves complete together
    src = r"""
extern "C" __global__ void k(const int *in, unsigned *out, int *any)
{
    int lane = threadIdx.x % 32;
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    out[threadIdx.x] = __ballot_sync(half, in[threadIdx.x] > 0);
    any[threadIdx.x] = __any_sync(half, in[threadIdx.x] > 900);
}
"""
    x = np.where(np.arange(64) % 16 == 0, 1000, -1).astype(np.int32)
    x[16] = -5     # the second half of warp 0: nobody positive
    out, any_ = np.zeros(64, np.uint32), np.zeros(64, np.int32)
    run_clean(kernel(src), (1,), (64,), (x, out, any_))
    lanes = np.arange(64)
    bits = np.array([sum(1 << (l % 32) for l in range(64) if x[l] > 0 and l // 16 == h) for h in range(4)],
                    np.uint32)
    np.testing.assert_array_equal(out, bits[lanes // 16])
    np.testing.assert_array_equal(any_, (bits[lanes // 16] != 0).astype(np.int32))


# ============================================================== grid-wide sync (cooperative launch)
GRID = HEADER_CG + r"""
extern "C" __global__ void k(int *a, int *b, int n, int quit_block)
{
    cg::grid_group grid = cg::this_grid();
    if ((int)blockIdx.x == quit_block) return;
    int i = grid.thread_rank();
    a[i] = i * 3;
    grid.sync();
    b[i] = a[(i + 64) % n] + (int)grid.size() * 0;
}
"""


def _grid_args(n=512, quit_block=-1):
    return np.zeros(n, np.int32), np.zeros(n, np.int32), np.int32(n), np.int32(quit_block)


def test_grid_sync_orders_every_block_on_a_cooperative_launch():
    a, b, n, q = _grid_args()
    run_clean(simcore.RawModule(code=GRID, enable_cooperative_groups=True).get_function("k"),
              (8,), (64,), (a, b, n, q))
    np.testing.assert_array_equal(b, 3 * ((np.arange(512) + 64) % 512))


def test_rawkernel_takes_enable_cooperative_groups_as_cupy_does():
    a, b, n, q = _grid_args()
    simcore.RawKernel(GRID, "k", enable_cooperative_groups=True)((8,), (64,), (a, b, n, q))
    np.testing.assert_array_equal(b, 3 * ((np.arange(512) + 64) % 512))


def test_without_grid_sync_the_exchange_between_blocks_is_a_race():
    src = GRID.replace("    grid.sync();\n", "")
    f = fault_of(simcore.RawModule(code=src, enable_cooperative_groups=True).get_function("k"),
                 (8,), (64,), _grid_args())
    assert f.kind == "race" and "between blocks" in str(f)


def test_grid_sync_on_a_normal_launch_is_refused_with_cudas_wording():
    with pytest.raises(simcore.LaunchError) as info:
        simcore.RawModule(code=GRID).get_function("k")((8,), (64,), _grid_args())
    msg = str(info.value)
    assert "grid.sync() on line 11 needs a cooperative launch" in msg
    assert "cudaErrorLaunchFailure" in msg and "enable_cooperative_groups=True" in msg


def test_a_cooperative_launch_larger_than_the_gpu_holds_is_refused():
    k = simcore.RawModule(code=GRID, enable_cooperative_groups=True).get_function("k")
    with pytest.raises(simcore.LaunchError) as info:
        k((133 * 2,), (1024,), _grid_args(n=266 * 1024))
    assert "cudaErrorCooperativeLaunchTooLarge" in str(info.value)
    assert "264 in all" in str(info.value)        # 2 blocks of 1024 threads per SM, 132 SMs


def test_a_block_that_exits_before_grid_sync_leaves_the_others_waiting_forever():
    k = simcore.RawModule(code=GRID, enable_cooperative_groups=True).get_function("k")
    f = fault_of(k, (8,), (64,), _grid_args(quit_block=3))
    assert f.kind == "deadlock"
    assert "grid.sync" in str(f)


def test_grid_sync_waits_forever_for_a_block_whose_thread_zero_exited():
    src = GRID.replace("if ((int)blockIdx.x == quit_block) return;",
                       "if ((int)blockIdx.x == quit_block && threadIdx.x == 0) return;")
    k = simcore.RawModule(code=src, enable_cooperative_groups=True).get_function("k")
    assert fault_of(k, (8,), (64,), _grid_args(quit_block=2)).kind == "deadlock"
    a, b, n, q = _grid_args(quit_block=-1)
    k((8,), (64,), (a, b, n, q))          # nobody exits: fine
    np.testing.assert_array_equal(b, 3 * ((np.arange(512) + 64) % 512))


def test_a_member_call_on_something_else_is_named():
    src = 'extern "C" __global__ void k(int *out)\n{\n    int x = 1;\n    out[0] = x.size();\n}\n'
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src)
    assert "member function 'size' in something that is not a struct" in str(info.value)
    assert info.value.line == 4
