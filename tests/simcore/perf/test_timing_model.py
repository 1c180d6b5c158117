"""The timing model (simcore.perf): occupancy rules, counters, estimates, sweeps, GPU data."""
import json
import os
import pathlib

import numpy as np
import pytest

import simcore
from simcore.perf import get_gpu, known_gpus, occupancy
from simcore.perf.counters import estimate_registers, statement_instructions
from simcore.launch import marshal
from simcore.perf.sampling import interior_blocks, run_sample, sample_plan
from barrier_course.lessons import tuning_kernels

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent.parent


def kernel(src, name, options=()):
    return simcore.RawModule(code=src, options=options, backend="sim").get_function(name)


# ---------------------------------------------------------------- occupancy (CUDA's rules)
@pytest.mark.parametrize("gpu, threads, regs, shared, blocks, limiter", [
    ("H200", 256, 32, 0, 8, "warps"),              # 64 warps / 8 per block
    ("H200", 32, 16, 0, 32, "blocks"),             # at most 32 blocks per SM
    ("H200", 128, 64, 0, 8, "registers"),          # 64*32 = 2048 regs per warp -> 32 warps -> 8 blocks
    ("H200", 256, 37, 0, 6, "registers"),          # 37 regs round to 1280 per warp: 65536 // 10240 = 6
    ("H200", 256, 32, 48 * 1024, 4, "shared memory"),   # 233472 // (49152 + 1024 reserved)
    ("H200", 1024, 32, 0, 2, "warps"),
    ("RTX4090", 1024, 32, 0, 1, "warps"),          # 48 warps per SM on CC 8.9
    ("RTX4090", 64, 16, 0, 24, "blocks"),          # 24 blocks per SM on CC 8.9
    ("H200", 1024, 255, 0, 0, "registers"),        # 255 regs: 8 warps fit, a 32-warp block does not
])
def test_occupancy_follows_cuda_rules(gpu, threads, regs, shared, blocks, limiter):
    occ = occupancy(get_gpu(gpu), threads, regs, shared)
    assert occ.blocks_per_sm == blocks
    assert occ.limiter == limiter


def test_block_that_does_not_fit_is_a_clear_error():
    src = 'extern "C" __global__ void big(float *x) { __shared__ float s[32000]; s[threadIdx.x] = 1.0f; ' \
          'x[threadIdx.x] = s[threadIdx.x]; }'
    k = kernel(src, "big")
    with pytest.raises(simcore.LaunchError, match="shared memory"):
        k.estimate((4,), (32,), (np.zeros(32, np.float32),), shared_mem=200 * 1024)


# ---------------------------------------------------------------- counters
COPY = r"""
extern "C" __global__ void copy(const float *in, float *out, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}
"""


def per_block(k, grid, block, args):
    return k.estimate(grid, block, args).per_block


def test_coalesced_copy_moves_4_sectors_per_warp_access_and_strided_32():
    k = kernel(COPY, "copy")
    n = 32 * 64
    x = np.arange(n * 32, dtype=np.float32)
    out = np.zeros(n, np.float32)
    coalesced = per_block(k, (64,), (32,), (x, out, np.int32(1)))
    strided = per_block(k, (64,), (32,), (x, out, np.int32(32)))
    assert coalesced["sectors_per_access"] == 4          # load 4 + store 4
    assert strided["sectors_per_access"] == (32 + 4) / 2  # each lane's load in its own sector


BANKS = r"""
extern "C" __global__ void banks(float *out, int stride)
{
    __shared__ float s[1024];
    int t = threadIdx.x;
    for (int j = t; j < 1024; j += blockDim.x)
        s[j] = j;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[(t * stride) % 1024];
}
"""


@pytest.mark.parametrize("stride, conflicts", [(1, 0), (32, 31), (2, 1), (0, 0), (33, 0)])
def test_bank_conflicts_of_strided_shared_reads(stride, conflicts):
    k = kernel(BANKS, "banks")
    out = np.zeros(4 * 32, np.float32)
    pb = per_block(k, (4,), (32,), (out, np.int32(stride)))
    # 32 conflict-free writes (one warp, 32 iterations) + one read with `conflicts` extra wavefronts
    assert pb["shared_accesses"] == 33
    assert pb["bank_conflicts"] == conflicts


DIVERGE = r"""
extern "C" __global__ void branchy(float *out, int by_lane)
{
    int t = threadIdx.x;
    float v = 0.0f;
    int side = by_lane ? (t % 2) : ((t / 32) % 2);
    if (side) { v = out[t] * 2.0f + 1.0f; v = v * v; }
    else      { v = out[t] * 3.0f - 1.0f; v = v * v + v; }
    out[t] = v;
}
"""


def test_divergence_issues_both_paths():
    k = kernel(DIVERGE, "branchy")
    out = np.ones(64, np.float32)
    uniform = per_block(k, (1,), (64,), (out, np.int32(0)))["warp_instructions"]
    divergent = per_block(k, (1,), (64,), (out, np.int32(1)))["warp_instructions"]
    assert divergent > uniform


def test_barriers_and_one_atomic_per_block_of_a_tree_reduction():
    case = next(c for c in tuning_kernels.cases("small") if c.kernel == "tree_sum_atomic")
    k = kernel(case.source, case.kernel, case.options(256))
    n = 1 << 16
    est = k.estimate((n // 256,), (256,), (np.ones(n, np.float32), np.zeros(1, np.float32), np.int32(n)))
    assert est.per_block["barriers"] == 1 + 8          # after the load, then one per level
    assert est.per_block["atomics"] == 1
    # every block adds to the same address: they are serialised
    gpu = get_gpu("H200")
    assert est.breakdown["atomics"] == pytest.approx(n // 256 * gpu.atomic_same_address_ns * 1e-6)


def test_statement_instruction_counts():
    assert statement_instructions("v_x_1 = v_y_2") == 0                       # a copy
    assert statement_instructions("u_s_3 = (u_s_3 | u_t5)") == 0               # bookkeeping
    assert statement_instructions("_t7 = (_t6 + _t5)") == 1
    assert statement_instructions("_t9 = (_t8 + K9)") == 0.125                 # loop counter
    assert statement_instructions("_t1 = ((v_a_5 * v_b_6) + K4)") == 1        # one FMA
    assert statement_instructions("_t1 = X.ld((v_in_0 + (v_g_8).astype(I8) * 4), F4, L, 0, False)") == 1


VOTES = r"""
__global__ void votes(unsigned *out, int n)
{
    unsigned t = threadIdx.x;
    unsigned a = 0;
%s
    out[t] = a;
}
"""


@pytest.mark.parametrize("vote", ["a += __ballot_sync(0xffffffff, t > %d);", "a += __syncthreads_count(t > %d);",
                                  "a += __any_sync(0xffffffff, t == %d);"])
def test_a_vote_predicate_is_an_operand_not_a_register_of_the_estimate(vote):
    # the predicate of a vote or __syncthreads_count is the instruction's operand: more votes
    # of the same kind need no more registers
    one = kernel(VOTES % ("    " + vote % 1), "votes").program
    four = kernel(VOTES % "\n".join("    " + vote % i for i in range(4)), "votes").program
    assert estimate_registers(four) == estimate_registers(one)


def test_a_user_variable_named_like_an_operand_is_a_register_of_the_estimate():
    plain = kernel(VOTES % "    unsigned extra = t * 3u; a += extra;", "votes").program
    named = kernel(VOTES % "    unsigned my_lane = t * 3u; a += my_lane;", "votes").program
    assert estimate_registers(named) == estimate_registers(plain)


def test_sample_runs_real_blocks_with_their_own_blockidx():
    src = r"""
    extern "C" __global__ void last_reads(const float *x, float *out)
    {
        if (blockIdx.x == gridDim.x - 1)
            out[threadIdx.x] = x[threadIdx.x];
    }
    """
    k = kernel(src, "last_reads")
    launch = simcore.Launch(k.name, (1000, 1, 1), (32, 1, 1), 0, "sim")
    x, out = np.ones(32, np.float32), np.zeros(32, np.float32)
    counters = run_sample(k.program, launch, marshal(k, (x, out)))
    assert {0, 1, 998, 999} <= set(counters.blocks) and len(counters.blocks) == 34
    for b, counts in counters.blocks.items():
        assert (counts.sectors > 0) == (b == 999)
    assert sum(c.weight for c in counters.blocks.values()) == pytest.approx(1000)
    assert counters.blocks[999].weight == 1.0            # the edge block stands for itself
    assert not out.any()                                  # the caller's arrays are untouched


def test_a_kernel_writing_through_a_const_pointer_is_estimated_without_touching_the_callers_array():
    src = r"""
    extern "C" __global__ void w(const float *in, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            ((float *)in)[i] = 1.0f;
    }
    """
    x = np.zeros(1 << 16, np.float32)
    est = kernel(src, "w").estimate((256,), (256,), (x, np.int32(x.size)))
    assert est.time_ms > 0 and not x.any()


def test_a_small_grid_is_run_whole():
    assert sample_plan(5) == [(0, 5)]
    assert sample_plan(34) == [(0, 34)]
    assert sample_plan(35)[:2] == [(0, 2), (33, 2)]


def test_interior_blocks_spread_over_the_grid_and_over_blockidx_residues():
    picked = interior_blocks(4096)
    assert len(set(picked)) == 30 and all(2 <= b < 4094 for b in picked)
    assert len({b % 8 for b in picked}) == 8 and max(np.bincount([b % 8 for b in picked])) <= 5
    assert len({b * 8 // 4096 for b in picked}) == 8      # every eighth of the grid


WORK_IN_SOME_BLOCKS = r"""
extern "C" __global__ void some_blocks(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i];
    if (blockIdx.x % 8 == 5)                 // never block 0, 1, the middle or the last two
        for (int r = 0; r < 200; r++)
            a = a * 0.5f + 1.0f;
    out[i] = a;
}
"""


def test_work_in_blocks_a_first_middle_last_sample_misses_is_counted():
    k = kernel(WORK_IN_SOME_BLOCKS, "some_blocks")
    n = 4096 * 128
    est = k.estimate((4096,), (128,), (np.ones(n, np.float32), np.zeros(n, np.float32), np.int32(n)))
    plain = kernel(WORK_IN_SOME_BLOCKS.replace("% 8 == 5", "< 0"), "some_blocks").estimate(
        (4096,), (128,), (np.ones(n, np.float32), np.zeros(n, np.float32), np.int32(n)))
    # one block in 8 runs 200 more multiply-adds per thread: about 25 more instructions per
    # thread on average than the plain copy's handful
    extra = est.per_block["warp_instructions"] - plain.per_block["warp_instructions"]
    assert 4 * 200 / 8 * 0.6 < extra < 4 * 200 / 8 * 1.6


def test_same_address_atomics_are_priced_for_the_whole_grid():
    src = r"""
    extern "C" __global__ void count(float *total, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
            atomicAdd(total, 1.0f);
    }
    """
    k = kernel(src, "count")
    gpu = get_gpu("H200")
    for n in (1 << 18, 1 << 20):
        est = k.estimate((n // 256,), (256,), (np.zeros(1, np.float32), np.int32(n)))
        assert est.bound == "atomics"
        # every one of the n atomics waits for the one before it on the same address
        assert est.breakdown["atomics"] == pytest.approx(n * gpu.atomic_same_address_ns * 1e-6, rel=0.02)


def test_a_float4_load_moves_the_same_sectors_as_four_coalesced_floats():
    src = r"""
    extern "C" __global__ void c4(const float4 *in, float4 *out, int n4)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n4)
            out[i] = in[i];
    }
    """
    n = 1 << 16
    est = kernel(src, "c4").estimate((n // 4 // 256,), (256,), (np.ones(n, np.float32), np.zeros(n, np.float32),
                                                                 np.int32(n // 4)))
    # 32 lanes x 16 bytes = 16 sectors per warp, read and written: 32 per warp, 8 warps a block
    assert est.per_block["global_sectors"] == 8 * 32


CAST_COPY = r"""
extern "C" __global__ void cast_copy(const float *in, float *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4 *>(in)[i];
        reinterpret_cast<float4 *>(out)[i] = v;
    }
}
"""
TWO_SCALARS_COPY = r"""
extern "C" __global__ void two_scalars(const float *in, float *out, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        out[2 * i] = in[2 * i] * in[2 * i];
        out[2 * i + 1] = in[2 * i + 1];
    }
}
"""


@pytest.mark.parametrize("gpu", ["H200", "H100"])
def test_a_float_array_read_through_a_float4_cast_streams_at_the_float4_rate(gpu):
    """`reinterpret_cast<const float4 *>(in)[i]` of a `const float *` is one 16-byte load per lane
    on the GPU (LDG.E.128), as for a `const float4 *` parameter: the same DRAM rate, not the
    4-byte one of the pointer's type. Scalar loads of the same sectors (two floats per lane,
    one read twice) stay at the 4-byte rate."""
    n = 1 << 24                       # 128 MB moved: DRAM-bound, far past the L2
    args = (np.ones(n, np.float32), np.zeros(n, np.float32), np.int32(n // 4))
    cast = kernel(CAST_COPY, "cast_copy").estimate((n // 4 // 256,), (256,), args, gpu=gpu)
    typed = kernel(r"""
    extern "C" __global__ void typed(const float4 *in, float4 *out, int n4)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n4)
            out[i] = in[i];
    }
    """, "typed").estimate((n // 4 // 256,), (256,), args, gpu=gpu)
    assert cast.bound == typed.bound == "dram"
    assert cast.time_ms == pytest.approx(typed.time_ms, rel=1e-6)
    rates = get_gpu(gpu).dram_bytes_per_s_by_width
    assert cast.breakdown["dram"] == pytest.approx(2 * n * 4 / rates["16"] * 1e3, rel=0.01)
    scalars = kernel(TWO_SCALARS_COPY, "two_scalars").estimate((n // 2 // 256,), (256,), (
        np.ones(n, np.float32), np.zeros(n, np.float32), np.int32(n // 2)), gpu=gpu)
    assert scalars.breakdown["dram"] == pytest.approx(2 * n * 4 / rates["4"] * 1e3, rel=0.01)


def test_same_word_shared_atomics_serialise_and_cost_more_with_more_warps():
    src = r"""
    extern "C" __global__ void same_word(float *total, int n)
    {
        __shared__ float count;
        if (threadIdx.x == 0)
            count = 0.0f;
        __syncthreads();
        atomicAdd(&count, 1.0f);
        __syncthreads();
        if (threadIdx.x == 0)
            atomicAdd(total, count);
    }
    """
    k = kernel(src, "same_word")
    n = 1 << 20
    # a float atomicAdd is a compare-and-swap loop: every lane of a block waits on its one word
    times = {b: k.estimate((n // b,), (b,), (np.zeros(1, np.float32), np.int32(n))).time_ms for b in (256, 1024)}
    assert times[1024] > 2.5 * times[256]


SHARED_WORDS = r"""
extern "C" __global__ void words(unsigned int *out, float *fout, int n)
{
    __shared__ unsigned int w[32];
    __shared__ float f[32];
    if (threadIdx.x < 32) {
        w[threadIdx.x] = 0;
        f[threadIdx.x] = 0.0f;
    }
    __syncthreads();
    for (int r = 0; r < 16; r++) {
        if (FLOAT)
            atomicAdd(&f[threadIdx.x % WORDS], 1.0f);
        else
            atomicAdd(&w[threadIdx.x % WORDS], 1u);
    }
    __syncthreads();
    if (threadIdx.x < WORDS) {
        atomicAdd(&out[threadIdx.x], w[threadIdx.x]);
        atomicAdd(&fout[threadIdx.x], f[threadIdx.x]);
    }
}
"""


def shared_words_time(words, as_float):
    k = kernel(SHARED_WORDS, "words", options=(f"-DWORDS={words}", f"-DFLOAT={int(as_float)}"))
    return k.estimate((264,), (256,), (np.zeros(32, np.uint32), np.zeros(32, np.float32), np.int32(0))).time_ms


def test_shared_integer_increments_cost_the_same_whatever_the_lanes_on_one_word():
    # atomicAdd(&int, 1) is one warp-aggregated increment on the GPU (ATOMS.POPC.INC)
    assert shared_words_time(1, False) == pytest.approx(shared_words_time(32, False), rel=0.05)


def test_shared_float_atomics_cost_every_lane_operation_on_the_busiest_word():
    # a float atomicAdd is a compare-and-swap loop: 32 lanes on one word wait for each other
    one, spread = shared_words_time(1, True), shared_words_time(32, True)
    assert one > 10 * spread
    assert one > 10 * shared_words_time(1, False)


ROW_REREAD = r"""
extern "C" __global__ void reread(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    for (int r = 0; r < 64; r++)
        v += in[i * W + (r * 8) % W];
    if (i < n)
        out[i] = v;
}
"""


def reread_estimate(width, blocks=132):
    threads = blocks * 256
    k = kernel(ROW_REREAD, "reread", options=(f"-DW={width}",))
    return k.estimate((blocks,), (256,), (np.ones(threads * width, np.float32), np.zeros(threads, np.float32),
                                          np.int32(threads)))


def test_a_row_a_thread_reads_again_comes_from_the_l1_not_the_l2():
    est = reread_estimate(16)
    # 64 loads, 8 floats apart, of a 64-byte row: each thread's 2 sectors come from the L2 once
    # (plus the block's 32 sectors of out), then hit the L1
    assert est.per_block["global_sectors"] == pytest.approx(256 * 2 + 32, rel=0.01)
    assert est.per_block["l1_hit_sectors"] == pytest.approx(256 * 62, rel=0.01)
    assert est.per_block["l1_rounds"] == pytest.approx(62, abs=1)


def test_rows_larger_than_the_blocks_share_of_the_l1_miss_it():
    # 256 threads x 1 KB rows, each sector read again 32 loads later: 256 KB per block in
    # between, beyond its 128 KB share of the L1 (264 blocks: 2 per SM), so the second reads
    # miss too; with one block per SM the same kernel keeps them
    assert reread_estimate(256, blocks=132).per_block["l1_rounds"] > 30
    big = reread_estimate(256, blocks=264)
    assert big.per_block["l1_rounds"] < 1
    assert big.per_block["global_sectors"] == pytest.approx(256 * 64 + 32, rel=0.01)


def test_every_estimate_gives_its_held_out_error_bar():
    k, (grid, block, args) = copy_case(256)
    est = k.estimate(grid, block, args)
    bars = json.loads((ROOT / "simcore/data/timing-error-bars.json").read_text())
    want = (bars["bounds"].get(est.bound) or bars["bounds"]["all"])["typical_pct"]
    assert est.error_bar == want
    assert f"typically within \u00b1{want}% on the H200 for kernels like this" in str(est)
    assert k.estimate(grid, block, args, gpu="RTX4090").error_bar is None
    assert "not validated on the RTX4090" in str(k.estimate(grid, block, args, gpu="RTX4090"))


# ---------------------------------------------------------------- estimates and sweeps
def copy_case(block, n=1 << 20):
    k = kernel(COPY, "copy")
    return k, ((n // block,), (block,), (np.ones(n, np.float32), np.zeros(n, np.float32), np.int32(1)))


def test_estimate_is_deterministic_and_labelled_as_a_model():
    k, (grid, block, args) = copy_case(256)
    a = k.estimate(grid, block, args)
    b = k.estimate(grid, block, args)
    assert a.time_ms == b.time_ms and a.breakdown == b.breakdown
    assert "model estimate" in str(a) and "model estimate" in repr(a)
    assert a.time_ms > 0 and a.bound in a.breakdown
    assert a.occupancy.blocks_per_sm == 8 and a.waves == pytest.approx((1 << 12) / (132 * 8))


def test_unknown_gpu_lists_the_known_ones():
    k, (grid, block, args) = copy_case(256)
    with pytest.raises(simcore.LaunchError) as err:
        k.estimate(grid, block, args, gpu="GTX 480")
    for name in known_gpus():
        assert name in str(err.value)


def test_small_blocks_of_a_copy_are_limited_by_block_dispatch():
    k, launch32 = copy_case(32, 1 << 22)
    _, launch256 = copy_case(256, 1 << 22)
    e32, e256 = k.estimate(*launch32), k.estimate(*launch256)
    assert e32.bound == "dispatch" and e32.time_ms > 2 * e256.time_ms


def test_tune_picks_the_smallest_estimate_ties_at_the_floor_going_to_less_work_and_shows_a_table(capsys):
    sweep = simcore.tune(lambda b: copy_case(b)[0], lambda b: copy_case(b)[1], blocks=(32, 256, 1024),
                         progress=True)
    times = sweep.times_ms
    fastest = [b for b, t in times.items() if t == min(times.values())]
    estimates = dict(sweep.rows)
    assert sweep.best in fastest
    assert estimates[sweep.best].work_ms == min(estimates[b].work_ms for b in fastest)
    assert "MODEL" in sweep.table and "best" in sweep.table
    assert "tuning [" in capsys.readouterr().out


def test_tune_rejects_a_bad_make_launch():
    with pytest.raises(simcore.LaunchError, match="make_launch"):
        simcore.tune(copy_case(256)[0], lambda b: None, blocks=(256,))


def test_tuning_kernels_are_correct_on_the_simulator_at_every_block_size():
    for case in tuning_kernels.cases("small"):
        for b in case.blocks:
            k = kernel(case.source, case.kernel, case.options(b))
            inputs = case.make_inputs()
            args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in inputs)
            k(*case.shape(b), args)
            case.check(inputs, args, b)


# ---------------------------------------------------------------- GPU data
def test_every_gpu_has_the_models_parameters_and_sources():
    data = json.loads((ROOT / "simcore/data/gpus.json").read_text())
    assert {"H200", "H100", "RTX4090"} <= set(data["gpus"])
    for key in data["gpus"]:
        gpu = get_gpu(key)                  # all fields present (the dataclass would refuse otherwise)
        assert gpu.source and gpu.sms > 0 and gpu.dram_bytes_per_s > 0


def test_barrier_parameters_are_the_fit_to_the_h200_measurements():
    # the same least-squares fit as lesson 07: cycles = c0 + c_warp*W + s*(c_skew + c_late*(W-1))
    rows = json.loads((ROOT / "course/data/h200-barrier.json").read_text())["one_block_per_sm"]
    w = np.array([r["block"] / 32 for r in rows])
    s = np.array([r["skew"] for r in rows], float)
    a = np.c_[np.ones_like(w), w, s, s * (w - 1)]
    c0, c_warp, _, c_late = np.linalg.lstsq(a, np.array([r["cycles"] for r in rows]), rcond=None)[0]
    stored = get_gpu("H200").barrier
    assert stored["c0"] == pytest.approx(c0, rel=0.01)
    assert stored["c_warp"] == pytest.approx(c_warp, rel=0.01)
    assert stored["c_late"] == pytest.approx(c_late, rel=0.01)


def test_tuning_kernels_compile_with_nvcc(tmp_path):
    import shutil
    import subprocess
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        pytest.skip("nvcc not found ($NVCC, PATH, /usr/local/cuda/bin): the CUDA sources are not compiled")
    seen = set()
    for case in tuning_kernels.cases("measured"):
        for b in (case.blocks[0], case.blocks[-1]):
            key = (case.kernel, case.options(b))
            if key in seen:
                continue
            seen.add(key)
            src = tmp_path / f"{case.kernel}.cu"
            src.write_text(case.source)
            r = subprocess.run([nvcc, "-ptx", "-arch=sm_90", *case.options(b), str(src), "-o", os.devnull],
                               capture_output=True, text=True)
            assert r.returncode == 0, f"{case.name} block {b}: {r.stderr}"


def test_every_known_gpu_gives_an_estimate_and_bandwidth_matters():
    k, (grid, block, args) = copy_case(256, 1 << 24)  # 128 MB: more than any of their L2s holds
    times = {g: k.estimate(grid, block, args, gpu=g).time_ms for g in known_gpus()}
    assert all(t > 0 for t in times.values())
    assert times["RTX4090"] > times["H100"] > times["H200"]      # 0.63 < 2.08 < 2.98 TB/s
    assert k.estimate(grid, block, args, gpu="rtx 4090").gpu == "RTX4090"


def test_sweep_plot_draws_model_and_measured():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    sweep = simcore.tune(lambda b: copy_case(b)[0], lambda b: copy_case(b)[1], blocks=(64, 256), progress=False)
    ax = sweep.plot(measured={64: 0.02, 256: 0.01})
    assert len(ax.get_lines()) == 2 and "model" in ax.get_title()


# ---------------------------------------------------------------- global atomics by kind (mb6)
# The address is read per thread (&word[key[i]], every key 0), as in the measured kernel: nvcc
# then emits one RED per lane. An address uniform by construction (a bare `word`) is aggregated
# per warp instead (tests/simcore/perf/test_warp_aggregated_atomics.py).
ONE_WORD_ATOMIC = r"""
extern "C" __global__ void one_word(const int *key, const int *v, TYPE *word, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        OP(&word[key[i]], (TYPE)v[i]);
}
"""
MB6 = json.loads((ROOT / "course/data/h200-microbench6.json").read_text())


def _mb6_ms(name, block=256):
    sweep = next(s for s in MB6["sweeps"] if s["name"] == name)
    return next(r["median_ms"] for r in sweep["runs"] if r["block"] == block)


@pytest.mark.parametrize("ctype, op, measured", [
    ("int", "atomicMax", "mb6/global_atomic/max/same"),
    ("int", "atomicAdd", "mb6/global_atomic/add/same"),
    ("unsigned int", "atomicMin", "mb6/global_atomic/min/same"),
    ("float", "atomicAdd", "mb6/global_atomic/fadd/same"),
])
def test_one_address_global_atomics_are_priced_by_their_kind_as_the_h200_runs_them(ctype, op, measured):
    """The whole grid on one word: 2^22 integer atomics (any operation) take the H200 3.08 ms,
    float adds 7.38 ms (course/data/h200-microbench6.json); the estimate follows the kind."""
    n = 1 << 22
    k = kernel(ONE_WORD_ATOMIC, "one_word", (f"-DTYPE={ctype}", f"-DOP={op}"))
    word = np.zeros(1, np.float32 if ctype == "float" else np.int32 if ctype == "int" else np.uint32)
    est = k.estimate((n // 256,), (256,), (np.zeros(n, np.int32), np.ones(n, np.int32), word, np.int32(n)))
    assert est.bound == "atomics"
    assert est.time_ms == pytest.approx(_mb6_ms(measured), rel=0.1)


FMA_LOOP = r"""
extern "C" __global__ void fma_loop(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = (float)(i % 7);
    for (int r = 0; r < 2048; r++)
        a = a * 0.5f + 1.0f;
    if (i < n)
        out[i] = a;
}
"""


def test_a_grid_of_one_block_per_sm_is_charged_its_own_blocks_not_a_full_round():
    """An H100/H200 SM holds 32 blocks of 32 threads; a grid of one per SM runs one there, so its
    issue time is a thirty-second of the grid of 32 per SM (mb9 on the H100 at 32 threads: 0.0186
    against 0.0182 ms; the full-round price made both 0.0326), and never less than one block's path."""
    k = kernel(FMA_LOOP, "fma_loop")
    gpu = get_gpu("H200")
    out = np.zeros(32 * 32 * gpu.sms, np.float32)
    one, full = (k.estimate((blocks,), (32,), (out, np.int32(out.size))) for blocks in (gpu.sms, 32 * gpu.sms))
    assert one.breakdown["issue"] == pytest.approx(full.breakdown["issue"] / 32)
    assert one.time_ms < full.time_ms
    # the one block's dependent chain of 2048 multiply-adds stays: at least 2048 x 4 cycles
    assert one.work_ms - one.breakdown["launch"] >= 2048 * 4 / (gpu.clock_ghz * 1e9) * 1e3


def test_a_native_shared_atomic_costs_one_cycle_per_lane_after_the_first_on_its_word():
    """mb8 on the H100 (one ATOMS per warp in the SASS): 1, 4, 16 lanes on a word cost about 1, 4,
    16 cycles per warp atomic. The words kernel's atomicAdd of 1 is warp-aggregated, so this is
    the same kernel with an atomicMax of each lane's own value, which nvcc does not aggregate."""
    est = {}
    for words in (32, 8, 2):
        kw = kernel(SHARED_WORDS.replace("atomicAdd(&w[threadIdx.x % WORDS], 1u)",
                                         "atomicMax(&w[threadIdx.x % WORDS], threadIdx.x)"), "words",
                    options=(f"-DWORDS={words}", "-DFLOAT=0"))
        est[words] = kw.estimate((132,), (1024,), (np.zeros(32, np.uint32), np.zeros(32, np.float32), np.int32(0)))
    shared = {w: e.breakdown["shared"] for w, e in est.items()}
    # 32 words: one wavefront per warp atomic; 8 words: 1 + 3; 2 words: 1 + 15
    assert shared[8] / shared[32] == pytest.approx(4, rel=0.15)
    assert shared[2] / shared[32] == pytest.approx(16, rel=0.15)
