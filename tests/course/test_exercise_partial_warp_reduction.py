"""Exercise 4 (a shuffle reduction for blocks that are not a multiple of 32): wrong answers
lose points, right answers written in other ways than the solution get all of them.

Each answer is what a student writes in place of the solution region of
solutions/ex04_partial_warp_reduction (after `int v = ...;`, to the end of the kernel).

__activemask() as the mask *with* the guarded additions is graded as wrong: under the
adversarial and random schedules the simulator lets __activemask() return only the caller's
part of a warp that a GPU may have split there (simcore/runtime/activemask.py), so the shuffle reads a
lane outside its mask and the report names the __activemask() the mask came from.
"""

from exercise_answers import solution_notebook, standard_answer_tests

NOTEBOOK = solution_notebook("ex04_partial_warp_reduction")
LANES = "int lanes_here = min(32, (int)blockDim.x - warp * 32);\n"


def stage1(mask="__ballot_sync(0xffffffff, 1)", guard="lane + offset < lanes_here",
           shfl="__shfl_down_sync(mask, v, offset)"):
    """Every warp sums its lanes into warp_sums[warp]; `guard` decides which reads are added."""
    add = f"    if ({guard})\n        v += other;\n" if guard else "    v += other;\n"
    return (LANES + f"unsigned mask = {mask};\n"
            "for (int offset = 16; offset > 0; offset /= 2) {\n"
            f"    int other = {shfl};\n" + add + "}\n"
            "if (lane == 0)\n    warp_sums[warp] = v;\n")


BAR = "__syncthreads();\n"
# stage 2, the solution's way: every lane of warp 0 takes part, padding with 0
STAGE2_PAD = """if (warp == 0) {
    v = (lane < num_warps) ? warp_sums[lane] : 0;
    unsigned first = __ballot_sync(0xffffffff, 1);
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(first, v, offset);
        if (lane + offset < lanes_here)
            v += other;
    }
    if (lane == 0)
        out[blockIdx.x] = v;
}
"""
# stage 2 by one thread
STAGE2_SERIAL = """if (t == 0) {
    int total = 0;
    for (int w = 0; w < num_warps; ++w)
        total += warp_sums[w];
    out[blockIdx.x] = total;
}
"""
# stage 2 with a ballot mask of the lanes that hold a warp sum, computed before the branch
STAGE2_BALLOT = """if (warp == 0) {
    unsigned have = __ballot_sync(__ballot_sync(0xffffffff, 1), lane < num_warps);
    if (lane < num_warps) {
        v = warp_sums[lane];
        for (int offset = 16; offset > 0; offset /= 2) {
            int other = __shfl_down_sync(have, v, offset);
            if (lane + offset < num_warps)
                v += other;
        }
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
"""


# name: (answer, the grade cell that must fail)
WRONG = {
    # the warp-reduce intrinsic in stage 2 with the full mask inside `if (t < num_warps)`: the
    # mask names lanes of warp 0 that do not take part
    "reduce_add_sync_full_mask_in_branch": ("""
int s = __reduce_add_sync(__ballot_sync(0xffffffff, 1), v);
if (lane == 0)
    warp_sums[warp] = s;
__syncthreads();
if (t < num_warps) {
    int total = __reduce_add_sync(0xffffffff, warp_sums[t]);
    if (t == 0)
        out[blockIdx.x] = total;
}
""", "test_schedules_and_models"),
    # the starting kernel: __activemask() as the mask, every lane adds what it read
    "starting_kernel": ("""unsigned mask = __activemask();
for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(mask, v, offset);
if (lane == 0)
    warp_sums[warp] = v;
__syncthreads();
if (t < num_warps) {
    v = warp_sums[t];
    mask = __activemask();
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
    if (t == 0)
        out[blockIdx.x] = v;
}
""",
        "test_partial_tail_warp"),
    # the full mask in a partial warp, and no guard: lane 0 of the tail warp adds lane 16's undefined value
    "full_mask_no_guard": (stage1(mask="0xffffffff", guard=None) + BAR + STAGE2_PAD,
        "test_partial_tail_warp"),
    # the right mask (a ballot of the lanes that exist), but the reads from missing lanes are added
    "ballot_mask_no_guard": (stage1(guard=None) + BAR + STAGE2_PAD,
        "test_partial_tail_warp"),
    # stage 2 inside `if (t < num_warps)` with the full mask: names lanes that do not take part
    "stage2_full_mask_in_branch": (stage1() + BAR + """if (t < num_warps) {
    v = warp_sums[t];
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(0xffffffff, v, offset);
        if (lane + offset < num_warps)
            v += other;
    }
    if (t == 0)
        out[blockIdx.x] = v;
}
""",
        "test_schedules_and_models"),
    # stage 2 reads warp_sums past num_warps (never written) instead of padding with 0
    "stage2_no_padding": (stage1() + BAR + STAGE2_PAD.replace("(lane < num_warps) ? warp_sums[lane] : 0", "warp_sums[lane]"),
        "test_full_warps"),
    # stage 2 pads with 1: the wrong neutral value for a sum
    "stage2_wrong_neutral": (stage1() + BAR + STAGE2_PAD.replace("warp_sums[lane] : 0", "warp_sums[lane] : 1"),
        "test_full_warps"),
    # no barrier between writing the warp sums and reading them
    "missing_barrier": (stage1() + STAGE2_PAD,
        "test_full_warps"),
    # __syncwarp() between the stages: it orders one warp, not the block
    "syncwarp_instead_of_barrier": (stage1() + "__syncwarp();\n" + STAGE2_PAD,
        "test_full_warps"),
    # off by one: also adds the value read from the first lane that does not exist
    "guard_off_by_one": (stage1(guard="lane + offset <= lanes_here") + BAR + STAGE2_PAD,
        "test_partial_tail_warp"),
    # the lane count as blockDim.x % 32: 0 for the full warps, which then add nothing
    "lane_count_modulo": (stage1().replace("int lanes_here = min(32, (int)blockDim.x - warp * 32);", "int lanes_here = blockDim.x % 32;") + BAR + STAGE2_PAD.replace("lane + offset < lanes_here", "lane + offset < num_warps"),
        "test_full_warps"),
    # num_warps rounded down in stage 2: the tail warp's sum is left out
    "warp_count_rounded_down": (stage1() + BAR + STAGE2_PAD.replace("(lane < num_warps)", "(lane < blockDim.x / 32)"),
        "test_partial_tail_warp"),
    # the stage-2 mask computed with a full-mask ballot inside the divergent branch
    "ballot_inside_branch": (stage1() + BAR + """if (lane < num_warps && warp == 0) {
    unsigned have = __ballot_sync(0xffffffff, 1);
    v = warp_sums[lane];
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(have, v, offset);
        if (lane + offset < num_warps)
            v += other;
    }
    if (lane == 0)
        out[blockIdx.x] = v;
}
""",
        "test_schedules_and_models"),
    # the solution's guarded additions, but the stage-1 mask from __activemask(): it names the
    # lanes that happen to run together, which a GPU (and the adversarial schedule) may split
    "activemask_with_guards": (stage1(mask="__activemask()") + BAR + STAGE2_PAD,
        "test_schedules_and_models"),
    # the same in stage 2 only: warp 0's mask from __activemask() inside `if (warp == 0)`
    "activemask_with_guards_stage2": (stage1() + BAR + STAGE2_PAD.replace("__ballot_sync(0xffffffff, 1)", "__activemask()"),
        "test_schedules_and_models"),
    # the barrier inside `if (lane == 0)`: only one lane per warp arrives
    "barrier_in_lane0_branch": (LANES + """unsigned mask = __ballot_sync(0xffffffff, 1);
for (int offset = 16; offset > 0; offset /= 2) {
    int other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < lanes_here)
        v += other;
}
if (lane == 0) {
    warp_sums[warp] = v;
    __syncthreads();
}
""" + STAGE2_SERIAL,
        "test_full_warps"),
}

RIGHT = {
    # the solution's shape: ballot mask and guarded additions, stage 2 padded with 0
    "solution_shape": stage1() + BAR + STAGE2_PAD,
    # the mask computed from the lane count; stage 2 by one thread
    "computed_mask_serial_stage2": stage1(
        mask="(lanes_here == 32) ? 0xffffffffu : ((1u << lanes_here) - 1u)") + BAR + STAGE2_SERIAL,
    # a butterfly (xor) reduction with guards; stage 2 with a ballot mask made before the branch
    "xor_butterfly_ballot_stage2": stage1(guard="(lane ^ offset) < lanes_here",
                                          shfl="__shfl_xor_sync(mask, v, offset)") + BAR + STAGE2_BALLOT,
    # no shuffles at all: one shared total and atomics
    "shared_atomic": """
__shared__ int total;
if (t == 0) total = 0;
__syncthreads();
atomicAdd(&total, v);
__syncthreads();
if (t == 0) out[blockIdx.x] = total;
""",
    # the mask as a ballot of a predicate; the guard reads the mask itself
    "ballot_of_predicate_mask": LANES + """
unsigned mask = __ballot_sync(0xffffffff, t < blockDim.x);
for (int offset = 16; offset > 0; offset /= 2) {
    int other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < 32 && ((mask >> (lane + offset)) & 1u))
        v += other;
}
if (lane == 0)
    warp_sums[warp] = v;
__syncthreads();
""" + STAGE2_PAD,
    # both stages with the warp-reduce intrinsic (compute capability 8.0+: the graded sm_90 has
    # it): it adds exactly the lanes of its mask, so no guard is needed
    "reduce_add_sync_both_stages": """
unsigned mask = __ballot_sync(0xffffffff, 1);
int s = __reduce_add_sync(mask, v);
if (lane == 0)
    warp_sums[warp] = s;
__syncthreads();
if (warp == 0) {
    int w = (lane < num_warps) ? warp_sums[lane] : 0;
    int total = __reduce_add_sync(__ballot_sync(0xffffffff, 1), w);
    if (lane == 0)
        out[blockIdx.x] = total;
}
""",
    # stage 2 inside `if (t < num_warps)` with a mask of those lanes made before the branch
    "reduce_add_sync_stage2_in_branch": """
int s = __reduce_add_sync(__ballot_sync(0xffffffff, 1), v);
if (lane == 0)
    warp_sums[warp] = s;
__syncthreads();
if (warp == 0) {
    unsigned have = __ballot_sync(__ballot_sync(0xffffffff, 1), lane < num_warps);
    if (lane < num_warps) {
        int total = __reduce_add_sync(have, warp_sums[lane]);
        if (lane == 0)
            out[blockIdx.x] = total;
    }
}
""",
}

# the tests every exercise runs on its answers (all graded in one scorer run)
(test_solution_full_marks, test_wrong_answer_loses_points, test_right_answer_full_marks,
 test_every_answer_compiles_with_nvcc) = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel="block_sum")
