"""Every pattern of the course's two seed texts, with the verdict simcore must give.

The seed texts' claims, and the behaviour expected of each pattern, are stated in
docs/semantics.md.
Defined kernels are checked exactly against numpy; undefined ones by `KernelFault.kind`
(and a few words of the report that the lessons rely on).
"""
import functools
import warnings

import numpy as np
import pytest

import simcore
from launch_checks import fault_of, run_clean
from seed_kernels import ELSE_SYNC, IFELSE, THEN_SYNC


@functools.lru_cache(maxsize=None)
def module(src, options=()):
    return simcore.RawModule(code=src, options=options)


def kernel(src, name, *options):
    return module(src, tuple(options)).get_function(name)


# ============================================================== reverse a tile
REVERSE = r"""
__global__ void reverse(float *out, const float *in, int n)
{
    __shared__ float tile[1024];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    tile[t] = in[g];
    __syncthreads();
    out[g] = tile[blockDim.x - 1 - t];
}

__global__ void reverse_nosync(float *out, const float *in, int n)
{
    __shared__ float tile[1024];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    tile[t] = in[g];
    out[g] = tile[blockDim.x - 1 - t];
}
"""


def reverse_expected(x, block):
    return x.reshape(-1, block)[:, ::-1].ravel()


@pytest.mark.parametrize("block,grid", [(32, 1), (32, 5), (64, 3), (96, 2), (256, 4), (512, 2), (1024, 1),
                                        (1024, 3)])
def test_reverse_with_barrier_is_exact(block, grid):
    n = block * grid
    x = np.random.default_rng(block + grid).standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    k = kernel(REVERSE, "reverse")
    launch = run_clean(k, (grid,), (block,), (out, x, np.int32(n)))
    np.testing.assert_array_equal(out, reverse_expected(x, block))
    assert launch.warnings == []
    assert launch.thread_instructions > 0


@pytest.mark.parametrize("block", [64, 256, 1024])
def test_reverse_without_barrier_is_a_race(block):
    x = np.arange(2 * block, dtype=np.float32)
    out = np.zeros_like(x)
    f = fault_of(kernel(REVERSE, "reverse_nosync"), (2,), (block,), (out, x, np.int32(2 * block)))
    assert f.kind == "race"
    assert isinstance(f, simcore.DataRace)
    assert "tile" in str(f)
    assert f.line in (17, 18)          # the write or the read of the hazard
    assert set(f.report["lines"]) <= {17, 18}


def test_reverse_without_barrier_unchecked_adversarial_gives_wrong_output():
    block, grid = 256, 4
    x = np.arange(block * grid, dtype=np.float32)
    out = np.zeros_like(x)
    kernel(REVERSE, "reverse_nosync")((grid,), (block,), (out, x, np.int32(block * grid)), checks=False,
                                      schedule="adversarial")
    wrong = out != reverse_expected(x, block)
    assert wrong.any()
    assert 0.1 < wrong.mean() < 1.0     # some reads see the old (zero) tile, some the new values


def test_race_check_can_be_turned_off_per_launch():
    block = 128
    x = np.arange(block, dtype=np.float32)
    out = np.zeros_like(x)
    k = kernel(REVERSE, "reverse_nosync")
    assert fault_of(k, (1,), (block,), (out, x, np.int32(block))).kind == "race"
    k((1,), (block,), (out, x, np.int32(block)), checks={"race": False})   # runs to the end
    k((1,), (block,), (out, x, np.int32(block)), checks=False)
    # and the check is back on for the next launch
    assert fault_of(k, (1,), (block,), (out, x, np.int32(block))).kind == "race"


# ============================================================== if/else with a barrier on each side (seed_kernels.IFELSE)
def test_ifelse_uniform_warps_is_divergent_in_block():
    out = np.zeros(256, np.int32)
    f = fault_of(kernel(IFELSE, "ifelse"), (1,), (256,), (out, np.int32(128)))
    assert f.kind == "divergent_barrier"
    assert isinstance(f, simcore.DivergentBarrier)
    assert "in block" in str(f)
    assert "in warp" not in f.report["title"]
    assert sorted(f.report["lines"]) == [THEN_SYNC, ELSE_SYNC]


@pytest.mark.parametrize("split", [100, 48, 1])
def test_ifelse_warp_straddling_is_divergent_in_warp(split):
    out = np.zeros(256, np.int32)
    f = fault_of(kernel(IFELSE, "ifelse"), (1,), (256,), (out, np.int32(split)))
    assert f.kind == "divergent_barrier"
    assert f"in warp {split // 32}" in str(f)


def test_ifelse_warp_straddling_deadlocks_under_stack_model():
    out = np.zeros(256, np.int32)
    f = fault_of(kernel(IFELSE, "ifelse"), (1,), (256,), (out, np.int32(100)), model="stack")
    assert f.kind == "deadlock"
    assert isinstance(f, simcore.Deadlock)
    assert "pre-Volta" in f.report["model"]


def test_ifelse_uniform_split_under_stack_model_is_still_divergent():
    out = np.zeros(256, np.int32)
    f = fault_of(kernel(IFELSE, "ifelse"), (1,), (256,), (out, np.int32(128)), model="stack")
    assert f.kind == "divergent_barrier"


def test_ifelse_with_divergent_check_off_completes_with_the_plausible_outcome():
    # Independent model: every live thread arrives (from two sites) and the barrier completes.
    out = np.zeros(256, np.int32)
    kernel(IFELSE, "ifelse")((1,), (256,), (out, np.int32(128)), checks={"divergent_barrier": False})
    t = np.arange(256)
    np.testing.assert_array_equal(out, (t + 1) % 256 + np.where(t < 128, 0, 1000))


# ============================================================== early return
EARLY_RETURN = r"""
__global__ void early(float *out, const float *in, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tile[threadIdx.x] = 2.0f * in[i];
    __syncthreads();
    out[i] = tile[threadIdx.x];
}
"""


def test_early_return_with_nothing_after_is_ok_with_warning():
    n = 300
    x = np.arange(512, dtype=np.float32)
    out = np.full(512, -1, np.float32)
    k = kernel(EARLY_RETURN, "early")
    with pytest.warns(simcore.SimWarning, match="exited"):
        k((2,), (256,), (out, x, np.int32(n)))
    np.testing.assert_array_equal(out[:n], 2 * x[:n])
    assert (out[n:] == -1).all()
    assert k.last_launch.warnings and "legal" in k.last_launch.warnings[0]


def test_early_return_all_in_range_has_no_warning():
    x = np.arange(512, dtype=np.float32)
    out = np.zeros(512, np.float32)
    run_clean(kernel(EARLY_RETURN, "early"), (2,), (256,), (out, x, np.int32(512)))
    np.testing.assert_array_equal(out, 2 * x)


# ============================================================== WRONG / RIGHT tail (block-synchronization.txt)
TAIL = r"""
__global__ void wrong(float *out, const float *in, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tile[threadIdx.x] = in[i];
        __syncthreads();
    }
    __syncthreads();
    if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void right(float *out, const float *in, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
"""


def test_wrong_tail_guarded_barrier_with_work_after_faults():
    n = 300
    x = np.arange(512, dtype=np.float32)
    out = np.zeros(512, np.float32)
    f = fault_of(kernel(TAIL, "wrong"), (2,), (256,), (out, x, np.int32(n)))
    assert f.kind in ("divergent_barrier", "deadlock")
    assert 8 in f.report["lines"]


def test_wrong_tail_with_in_range_n_is_fine():
    # The bug is input dependent: with n a multiple of the block every thread takes the branch.
    x = np.arange(512, dtype=np.float32)
    out = np.zeros(512, np.float32)
    run_clean(kernel(TAIL, "wrong"), (2,), (256,), (out, x, np.int32(512)))


@pytest.mark.parametrize("n", [1, 255, 256, 300, 512])
def test_right_tail_predicated_fill_is_exact(n):
    x = np.arange(1, 513, dtype=np.float32)
    out = np.full(512, -1, np.float32)
    run_clean(kernel(TAIL, "right"), (2,), (256,), (out, x, np.int32(n)))
    tile = np.where(np.arange(512) < n, x, 0).reshape(2, 256)
    expected = np.roll(tile, -1, axis=1).ravel()
    np.testing.assert_array_equal(out[:n], expected[:n])
    assert (out[n:] == -1).all()


# ============================================================== barrier in a loop with per-thread trip count
LOOP = r"""
__global__ void loop(int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    int acc = 0;
    s[t] = t;
    for (int k = 0; k < TRIPS; ++k) {
        __syncthreads();
        acc += s[(t + k) % blockDim.x];
        __syncthreads();
    }
    out[t] = acc;
}
"""

LOOP_AFTER = r"""
__global__ void loop_after(int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    int acc = 0;
    s[t] = t;
    for (int k = 0; k < TRIPS; ++k) {
        __syncthreads();
        acc += s[(t + k) % blockDim.x];
    }
    s[t] = acc;
    __syncthreads();
    out[t] = s[(t + 1) % blockDim.x];
}
"""


def test_barrier_in_loop_with_per_lane_trip_count_deadlocks():
    k = kernel(LOOP, "loop", "-DTRIPS=(1 + (threadIdx.x % 4))")
    out = np.zeros(256, np.int32)
    f = fault_of(k, (1,), (256,), (out,))
    assert f.kind == "deadlock"
    assert "reconverge" in str(f)


def test_barrier_in_loop_with_per_warp_trip_count_and_barrier_after_is_divergent():
    # each warp uniform, warps differ, more barriers after the loop: an H200 completed with wrong
    # answers and synccheck flagged it; warps wait at two different call sites
    k = kernel(LOOP_AFTER, "loop_after", "-DTRIPS=(1 + threadIdx.x / 32)")
    out = np.zeros(256, np.int32)
    f = fault_of(k, (1,), (256,), (out,))
    assert f.kind == "divergent_barrier"
    assert set(f.report["lines"]) >= {9, 13}


def test_barrier_in_loop_with_per_warp_trip_count_nothing_after_is_legal_with_warning():
    # warps that leave early exit; exited threads are not waited for (the barrier is still fragile)
    k = kernel(LOOP, "loop", "-DTRIPS=(1 + threadIdx.x / 32)")
    out = np.zeros(256, np.int32)
    with pytest.warns(simcore.SimWarning, match="exited"):
        k((1,), (256,), (out,))
    t = np.arange(256)
    np.testing.assert_array_equal(out, [sum((x + j) % 256 for j in range(1 + x // 32)) for x in t])


def test_barrier_in_loop_with_uniform_trip_count_is_exact():
    k = kernel(LOOP, "loop", "-DTRIPS=5")
    out = np.zeros(256, np.int32)
    run_clean(k, (1,), (256,), (out,))
    t = np.arange(256)
    np.testing.assert_array_equal(out, sum((t + j) % 256 for j in range(5)))


# ============================================================== if (threadIdx.x < activeCount)
ACTIVE = r"""
__global__ void guard(int *out, int activeCount)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    if (t < activeCount) {
        s[t] = t * 3;
        __syncthreads();
        out[t] = s[activeCount - 1 - t];
    }
}

__global__ void guard_then_barrier(int *out, int activeCount)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    if (t < activeCount) {
        s[t] = t * 3;
        __syncthreads();
        out[t] = s[activeCount - 1 - t];
    }
    __syncthreads();
    out[t] += 1;
}
"""


@pytest.mark.parametrize("active", [100, 64, 1])
def test_active_count_guard_with_nothing_after_is_ok_with_warning(active):
    out = np.full(256, -7, np.int32)
    with pytest.warns(simcore.SimWarning):
        kernel(ACTIVE, "guard")((1,), (256,), (out, np.int32(active)))
    t = np.arange(active)
    np.testing.assert_array_equal(out[:active], 3 * (active - 1 - t))
    assert (out[active:] == -7).all()


@pytest.mark.parametrize("active", [100, 64])
def test_active_count_guard_with_barrier_after_faults(active):
    out = np.zeros(256, np.int32)
    f = fault_of(kernel(ACTIVE, "guard_then_barrier"), (1,), (256,), (out, np.int32(active)))
    assert f.kind in ("divergent_barrier", "deadlock")


def test_active_count_guard_uniform_when_everyone_active():
    out = np.zeros(256, np.int32)
    run_clean(kernel(ACTIVE, "guard_then_barrier"), (1,), (256,), (out, np.int32(256)))
    np.testing.assert_array_equal(out, 3 * (255 - np.arange(256)) + 1)


# ============================================================== warp shuffle reduction
SHFL = r"""
__global__ void warp_sum(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if ((threadIdx.x & 31) == 0)
        out[i / 32] = v;
}

__global__ void warp_sum_unrolled(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    v += __shfl_down_sync(0xffffffff, v, 16);
    v += __shfl_down_sync(0xffffffff, v, 8);
    v += __shfl_down_sync(0xffffffff, v, 4);
    v += __shfl_down_sync(0xffffffff, v, 2);
    v += __shfl_down_sync(0xffffffff, v, 1);
    if ((threadIdx.x & 31) == 0)
        out[i / 32] = v;
}

__global__ void warp_max_xor(int *out, const int *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int m = 16; m > 0; m >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffff, v, m));
    out[i] = v;
}

__global__ void warp_max_xor_tmp(int *out, const int *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int m = 16; m > 0; m >>= 1) {
        int other = __shfl_xor_sync(0xffffffff, v, m);
        v = max(v, other);
    }
    out[i] = v;
}
"""


@pytest.mark.parametrize("name", ["warp_sum", "warp_sum_unrolled"])
@pytest.mark.parametrize("block,grid", [(32, 1), (256, 3), (1024, 1)])
def test_five_shuffle_warp_reduction(name, block, grid):
    n = block * grid
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out = np.zeros(n // 32, np.float32)
    run_clean(kernel(SHFL, name), (grid,), (block,), (out, x))
    np.testing.assert_allclose(out, x.reshape(-1, 32).astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    # the exact float32 tree: lane 0 sums in the shuffle order
    v = x.reshape(-1, 32).copy()
    for off in (16, 8, 4, 2, 1):
        shifted = np.concatenate([v[:, off:], v[:, 32 - off:]], axis=1)[:, :32]
        shifted[:, 32 - off:] = v[:, 32 - off:]      # out-of-range source: own value
        v = (v + shifted).astype(np.float32)
    np.testing.assert_array_equal(out, v[:, 0])


def test_xor_butterfly_gives_every_lane_the_max():
    x = np.random.default_rng(1).integers(-1000, 1000, 256).astype(np.int32)
    out = np.zeros_like(x)
    run_clean(kernel(SHFL, "warp_max_xor"), (1,), (256,), (out, x))
    np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, 32).max(axis=1), 32))


def test_xor_butterfly_with_temporary_gives_every_lane_the_max():
    x = np.random.default_rng(1).integers(-1000, 1000, 256).astype(np.int32)
    out = np.zeros_like(x)
    run_clean(kernel(SHFL, "warp_max_xor_tmp"), (1,), (256,), (out, x))
    np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, 32).max(axis=1), 32))


# ============================================================== __activemask() inside a divergent loop
ACTIVEMASK = r"""
__global__ void bad_mask(int *out, const int *trips)
{
    int t = threadIdx.x;
    int v = t;
    for (int k = 0; k < trips[t]; ++k) {
        unsigned mask = __activemask();
        v += __shfl_down_sync(mask, v, 1);
    }
    out[t] = v;
}
"""


def test_activemask_in_divergent_loop_is_undefined():
    trips = (1 + np.arange(64) % 3).astype(np.int32)
    out = np.zeros(64, np.int32)
    f = fault_of(kernel(ACTIVEMASK, "bad_mask"), (1,), (64,), (out, trips))
    assert f.kind in ("invalid_mask", "undefined_value")
    assert f.line in (7, 8, 10)


def test_activemask_in_uniform_loop_is_fine():
    trips = np.full(64, 2, np.int32)
    out = np.zeros(64, np.int32)
    run_clean(kernel(ACTIVEMASK, "bad_mask"), (1,), (64,), (out, trips))
    v = np.arange(64).reshape(2, 32)
    for _ in range(2):
        s = np.concatenate([v[:, 1:], v[:, -1:]], axis=1)
        v = v + s
    np.testing.assert_array_equal(out, v.ravel())


# ============================================================== named barriers
NAMED = r"""
__global__ void halves(int *out, int count)
{
    __shared__ int s[512];
    int t = threadIdx.x;
    int half = t / 256;            // 0 or 1: uniform per group of 256
    int id = 1 + half;
    s[t] = t;
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count));
    int base = half * 256;
    out[t] = s[base + (t - base + 1) % 256];
}
"""


def test_named_barriers_split_block_into_halves_without_warning():
    out = np.zeros(512, np.int32)
    run_clean(kernel(NAMED, "halves"), (1,), (512,), (out, np.int32(256)))


def test_named_barriers_split_block_into_halves():
    out = np.zeros(512, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", simcore.SimWarning)
        kernel(NAMED, "halves")((1,), (512,), (out, np.int32(256)))
    t = np.arange(512)
    base = t // 256 * 256
    np.testing.assert_array_equal(out, base + (t - base + 1) % 256)


def test_named_barrier_count_larger_than_group_deadlocks():
    out = np.zeros(512, np.int32)
    f = fault_of(kernel(NAMED, "halves"), (1,), (512,), (out, np.int32(288)))
    assert f.kind == "deadlock"


@pytest.mark.parametrize("count", [100, 128])
def test_named_barrier_bad_count_is_named_barrier_fault(count):
    out = np.zeros(512, np.int32)
    f = fault_of(kernel(NAMED, "halves"), (1,), (512,), (out, np.int32(count)))
    assert f.kind == "named_barrier"
    assert isinstance(f, simcore.NamedBarrierError)
    assert str(count) in str(f)
    if count == 100:
        assert "multiple" in str(f)


# ============================================================== __syncthreads_count / _and / _or
VARIANTS = r"""
__global__ void variants(int *out, const int *pred)
{
    int t = threadIdx.x;
    int p = pred[blockIdx.x * blockDim.x + t];
    int c = __syncthreads_count(p);
    int a = __syncthreads_and(p);
    int o = __syncthreads_or(p);
    if (t == 0) {
        out[3 * blockIdx.x + 0] = c;
        out[3 * blockIdx.x + 1] = a;
        out[3 * blockIdx.x + 2] = o;
    }
}
"""


def test_syncthreads_count_and_or_exact():
    block = 128
    rows = [np.zeros(block), np.ones(block), (np.arange(block) % 3 == 0), np.eye(1, block, 77)[0] * 5,
            (np.arange(block) >= 64) * -2]
    pred = np.concatenate(rows).astype(np.int32)
    out = np.zeros(3 * len(rows), np.int32)
    run_clean(kernel(VARIANTS, "variants"), (len(rows),), (block,), (out, pred))
    got = out.reshape(-1, 3)
    for b, r in enumerate(rows):
        nz = np.asarray(r) != 0
        assert got[b, 0] == nz.sum()
        assert bool(got[b, 1]) == nz.all()
        assert bool(got[b, 2]) == nz.any()


# ============================================================== __syncwarp(mask)
SYNCWARP = r"""
__global__ void partial(int *out)
{
    __shared__ int s[64];
    __shared__ int u[64];
    int t = threadIdx.x;
    int lane = t & 31;
    s[t] = t;
    __syncwarp();
    if (lane < 16) {
        u[t] = s[t ^ 1] * 10;
        __syncwarp(0x0000ffff);
        out[t] = u[t ^ 2];
    } else {
        out[t] = -1;
    }
    out[t] += 1;              // keeps lanes 16-31 alive after the branch
}

__global__ void bad_partial(int *out)
{
    __shared__ int s[64];
    __shared__ int u[64];
    int t = threadIdx.x;
    int lane = t & 31;
    s[t] = t;
    __syncwarp();
    if (lane < 16) {
        u[t] = s[t ^ 1] * 10;
        __syncwarp(0x0001ffff);
        out[t] = u[t ^ 2];
    } else {
        out[t] = -1;
    }
    out[t] += 1;              // keeps lanes 16-31 alive after the branch
}
"""


def test_syncwarp_partial_mask_in_divergent_code_is_ok():
    out = np.zeros(64, np.int32)
    run_clean(kernel(SYNCWARP, "partial"), (1,), (64,), (out,))
    t = np.arange(64)
    lane = t & 31
    expected = np.where(lane < 16, ((t ^ 2) ^ 1) * 10, -1) + 1
    np.testing.assert_array_equal(out, expected)


def test_syncwarp_mask_naming_a_lane_not_taking_part_is_invalid():
    out = np.zeros(64, np.int32)
    f = fault_of(kernel(SYNCWARP, "bad_partial"), (1,), (64,), (out,))
    assert f.kind == "invalid_mask"
    assert isinstance(f, simcore.InvalidMask)
    assert f.line == 30
    assert "16" in str(f)       # the lane named by the mask that is not there


# ============================================================== out of bounds
OOB = r"""
__global__ void oob_global(float *out, const float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = data[i + 1];
}

__global__ void oob_shared(float *out)
{
    __shared__ float buf[64];
    int t = threadIdx.x;
    buf[t] = 1.0f;
    __syncthreads();
    out[t] = buf[t];
}
"""


def test_out_of_bounds_global_names_array_and_index():
    data = np.zeros(64, np.float32)
    out = np.zeros(64, np.float32)
    f = fault_of(kernel(OOB, "oob_global"), (1,), (64,), (out, data, np.int32(64)))
    assert f.kind == "out_of_bounds"
    assert isinstance(f, simcore.OutOfBounds)
    assert "data" in str(f)
    assert "64" in str(f)
    assert f.line == 5


def test_out_of_bounds_shared_names_array_and_index():
    out = np.zeros(128, np.float32)
    f = fault_of(kernel(OOB, "oob_shared"), (1,), (128,), (out,))
    assert f.kind == "out_of_bounds"
    assert "buf" in str(f)
    assert "64" in str(f)
    assert f.line == 12


def test_out_of_bounds_check_off_still_cannot_write_outside():
    # with the check off the simulator must not crash (an out-of-range write is dropped or wraps)
    out = np.zeros(128, np.float32)
    try:
        kernel(OOB, "oob_shared")((1,), (128,), (out,), checks={"out_of_bounds": False})
    except simcore.KernelFault:
        pass


# ============================================================== endless loop
ENDLESS = r"""
__global__ void spin(int *flag)
{
    while (flag[0] == 0) { }
    flag[1] = 1;
}
"""


def test_endless_loop_hits_step_limit():
    flag = np.zeros(2, np.int32)
    f = fault_of(kernel(ENDLESS, "spin"), (1,), (32,), (flag,), max_steps=2000)
    assert f.kind == "step_limit"
    assert isinstance(f, simcore.StepLimit)


# ============================================================== uninitialized shared memory
UNINIT = r"""
__global__ void uninit(float *out)
{
    __shared__ float buf[128];
    int t = threadIdx.x;
    if (t < 64) buf[t] = 1.0f;
    __syncthreads();
    out[t] = buf[t];
}
"""


def test_uninitialized_shared_reaching_output():
    out = np.zeros(128, np.float32)
    f = fault_of(kernel(UNINIT, "uninit"), (1,), (128,), (out,))
    assert f.kind == "uninitialized"
    assert isinstance(f, simcore.UninitializedRead)
    assert "buf" in str(f)


def test_uninitialized_check_off_runs():
    out = np.zeros(128, np.float32)
    kernel(UNINIT, "uninit")((1,), (128,), (out,), checks={"uninitialized": False})
    assert (out[:64] == 1).all()


# ============================================================== every check can be turned off
@pytest.mark.parametrize("check,src,name,launch", [
    ("race", REVERSE, "reverse_nosync", "rev"),
    ("divergent_barrier", IFELSE, "ifelse", "ifelse"),
    ("invalid_mask", SYNCWARP, "bad_partial", "syncwarp"),
    ("out_of_bounds", OOB, "oob_global", "oob"),
    ("uninitialized", UNINIT, "uninit", "uninit"),
])
def test_each_check_can_be_turned_off(check, src, name, launch):
    k = kernel(src, name)

    def go(**kw):
        if launch == "rev":
            x = np.arange(64, dtype=np.float32)
            k((1,), (64,), (np.zeros_like(x), x, np.int32(64)), **kw)
        elif launch == "ifelse":
            k((1,), (256,), (np.zeros(256, np.int32), np.int32(128)), **kw)
        elif launch == "syncwarp":
            k((1,), (64,), (np.zeros(64, np.int32),), **kw)
        elif launch == "oob":
            k((1,), (64,), (np.zeros(64, np.float32), np.zeros(64, np.float32), np.int32(64)), **kw)
        else:
            k((1,), (128,), (np.zeros(128, np.float32),), **kw)

    with pytest.raises(simcore.KernelFault) as info:
        go()
    assert info.value.kind == check
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        go(checks={check: False})


def test_checks_iterable_enables_only_named():
    x = np.arange(64, dtype=np.float32)
    k = kernel(REVERSE, "reverse_nosync")
    k((1,), (64,), (np.zeros_like(x), x, np.int32(64)), checks=["out_of_bounds"])
    with pytest.raises(simcore.DataRace):
        k((1,), (64,), (np.zeros_like(x), x, np.int32(64)), checks=["race"])


def test_unknown_check_name_is_a_launch_error():
    x = np.arange(64, dtype=np.float32)
    with pytest.raises(simcore.LaunchError, match="unknown check"):
        kernel(REVERSE, "reverse")((1,), (64,), (np.zeros_like(x), x, np.int32(64)), checks={"races": False})
