"""Exercise 8 (tuning a block sum): wrong answers lose points, right answers written in other
ways than the solution get all of them, and the speed points go only to right kernels.

Each answer is what a student writes in place of the solution region of
solutions/ex08_tune_block_sum: the `#define BLOCK_SIZE` line and the whole kernel. Speed is
graded on simcore's H200 timing MODEL (deterministic), within 1.5x of the reference solution's
estimate at two problem sizes; which answers deserve the points is decided by their H200 times
(course/data/h200-timing-sweeps.json: within 1.3x of the solution's).
"""

import ast
import functools
import json

import pytest

from exercise_answers import (answer_template, grade, kernel_with, max_points, solution_notebook,
                              standard_answer_tests)

NOTEBOOK = solution_notebook("ex08_tune_block_sum")
KERNEL = "sum_all"
SIGNATURE = 'extern "C" __global__ void sum_all(const float *in, float *total, int n)\n'


def kernel(block, body):
    return f"#define BLOCK_SIZE {block}\n" + SIGNATURE + "{\n" + body.strip("\n") + "\n}\n"


def tree(block, load="partial[t] = (i < n) ? in[i] : 0.0f;"):
    return kernel(block, f"""
    __shared__ float partial[BLOCK_SIZE];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    {load}
    __syncthreads();
    for (int half = BLOCK_SIZE / 2; half > 0; half /= 2) {{
        if (t < half)
            partial[t] += partial[t + half];
        __syncthreads();
    }}
    if (t == 0)
        atomicAdd(total, partial[0]);
""")


def shuffle(block, load="float v = (i < n) ? in[i] : 0.0f;", barrier="__syncthreads();",
            finish="v = (lane < BLOCK_SIZE / 32) ? warp_sums[lane] : 0.0f;", mask="0xffffffffu",
            first_offset=16, atomic="atomicAdd(total, v);", before=""):
    return kernel(block, f"""
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int i = blockIdx.x * BLOCK_SIZE + t;
    {before}
    {load}
    for (int offset = {first_offset}; offset > 0; offset /= 2)
        v += __shfl_down_sync({mask}, v, offset);
    if (lane == 0)
        warp_sums[warp] = v;
    {barrier}
    if (warp == 0) {{
        {finish}
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0)
            {atomic}
    }}
""")


# name: (answer, the grade cells that must fail)
WRONG = {
    # the starting kernel: right, but the tree's barriers and its many atomics make it slow
    "starting_kernel": (tree(256), {"test_speed"}),
    # the tree at its best block size: still over the limit (barrier latency)
    "tree_at_512": (tree(512), {"test_speed"}),
    # one atomic per thread: right, and 4 million atomics on one address
    "atomic_per_thread": (kernel(1024, """
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n)
        atomicAdd(total, in[i]);
"""), {"test_speed"}),
    # the shuffle version at a small block: right, but too many blocks, too many atomics
    "shuffle_at_128": (shuffle(128), {"test_speed"}),
    # no block barrier at all: every warp adds its own partial sum with one atomic on one
    # address, 131 072 of them: right, and 11.7x the solution's time on an H200
    "atomic_per_warp": (kernel(1024, """
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        atomicAdd(total, v);
"""), {"test_speed"}),
    # fast but racy: warp 0 reads the other warps' partial sums without the barrier
    "no_barrier_before_warp_zero": (shuffle(1024, barrier=""),
                                    {"test_easy_sizes", "test_every_schedule", "test_speed"}),
    # fast but divergent: the barrier inside `if (lane == 0)`, so a warp splits at it
    "barrier_under_lane_zero": (shuffle(1024, barrier="",
                                        before="", load="float v = (i < n) ? in[i] : 0.0f;").replace(
        "if (lane == 0)\n        warp_sums[warp] = v;",
        "if (lane == 0) {\n        warp_sums[warp] = v;\n        __syncthreads();\n    }"),
                                {"test_easy_sizes", "test_speed"}),
    # fast but reads partial sums nobody wrote: all 32 lanes of warp 0 read warp_sums
    "reads_unwritten_partials": (shuffle(512, finish="v = warp_sums[lane];"),
                                 {"test_easy_sizes", "test_speed"}),
    # the tail: reads past the end of `in` when n is not a multiple of the block
    "no_bounds_check": (shuffle(1024, load="float v = in[i];"), {"test_edge_sizes", "test_speed"}),
    # threads past the end leave before the shuffles and the barrier
    "early_return_past_the_end": (shuffle(1024, before="if (i >= n) return;", load="float v = in[i];"),
                                  {"test_edge_sizes", "test_speed"}),
    # a plain add to the total: a race between blocks
    "plain_add_to_total": (shuffle(1024, atomic="*total += v;"),
                           {"test_easy_sizes", "test_speed"}),
    # shuffle offsets from 32: every lane adds its own value once more
    "offset_from_32": (shuffle(1024, first_offset=32), {"test_easy_sizes", "test_speed"}),
    # almost right (the example): every input truncated to int before the sum; it kept
    # full marks while the test inputs were integer-valued
    "truncates_inputs_to_int": (shuffle(1024, load="float v = (i < n) ? (int)in[i] : 0.0f;"),
                                {"test_easy_sizes", "test_speed"}),
    # almost right: the warps' partial sums kept in an int array
    "int_warp_sums": (shuffle(1024).replace("__shared__ float warp_sums[32];", "__shared__ int warp_sums[32];"),
                      {"test_easy_sizes", "test_speed"}),
}

RIGHT = {
    # the barrier only in warp 0's branch: legal (the other warps exit, and exited threads are
    # not waited for; an H200 agrees), and the simulator only warns, which costs no point
    "barrier_only_in_warp_zero": shuffle(1024, barrier="",
                                         finish="__syncthreads();\n        v = (lane < BLOCK_SIZE / 32) ? warp_sums[lane] : 0.0f;"),
    # the solution's structure at 512 threads: a little slower, within the limit
    "shuffle_at_512": shuffle(512),
    # butterfly shuffles (xor), and thread 0 adds the warp sums in a plain loop
    "xor_shuffles_thread_zero_adds": kernel(1024, """
    __shared__ float sums[BLOCK_SIZE / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n)
        v = in[i];
    for (int m = 1; m < 32; m <<= 1)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    if ((threadIdx.x & 31) == 0)
        sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < BLOCK_SIZE / 32; w++)
            s += sums[w];
        atomicAdd(total, s);
    }
"""),
    # warp 0 finishes with a small shared-memory step and __syncwarp instead of shuffles
    "warp_zero_with_syncwarp": kernel(1024, """
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    float v = (i < n) ? in[i] : 0.0f;
    for (int offset = 16; offset >= 1; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (t % 32 == 0)
        warp_sums[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        for (int half = 16; half > 0; half /= 2) {
            if (t < half)
                warp_sums[t] += warp_sums[t + half];
            __syncwarp();
        }
        if (t == 0)
            atomicAdd(total, warp_sums[0]);
    }
"""),
}


# Right answers that try to fool a speed test run on a sample of the blocks, or on one grid
# size (issue 24 item 5): each is correct at every size, and slow on an H200 at the speed
# test's size or at another one (course/data/h200-ex08-answers.json)
GAMING = {
    # slow work (a long dependent loop whose result is never used) only in the blocks a
    # first/middle/last sample of a 4096-block grid does not run (and only in large grids,
    # which the correctness tests do not launch)
    "slow_in_unsampled_blocks": shuffle(1024, before="""float waste = (float)(t % 3);
    if (blockIdx.x % 8 == 5 && gridDim.x >= 1024)
        for (int k = 0; k < 4000; k++)
            waste = waste * 0.999f + 1.0f;""",
                                         atomic="atomicAdd(total, waste == -1.0f ? 0.0f : v);"),
    # the solution only when the grid is the speed test's; one atomic per thread otherwise
    "cheap_only_at_the_speed_grid": kernel(1024, """
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int i = blockIdx.x * BLOCK_SIZE + t;
    if (gridDim.x != 4096) {
        if (i < n)
            atomicAdd(total, in[i]);
        return;
    }
    float v = (i < n) ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < BLOCK_SIZE / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0)
            atomicAdd(total, v);
    }
"""),
    # every value through one same-address atomic, from a smaller block
    "atomic_per_thread_at_256": kernel(256, """
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n)
        atomicAdd(total, in[i]);
"""),
}

# a right answer that is faster than the solution on a GPU by construction: a quarter of the
# blocks do the work, each thread loading four elements with one float4 load; the rest return
FAST_BY_CONSTRUCTION = {
    "float4_quarter_of_the_blocks": kernel(1024, """
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int working = (gridDim.x + 3) / 4;
    if (blockIdx.x >= working)
        return;
    int i = (blockIdx.x * BLOCK_SIZE + t) * 4;
    float v = 0.0f;
    if (i + 3 < n) {
        float4 q = reinterpret_cast<const float4 *>(in)[i / 4];
        v = (q.x + q.y) + (q.z + q.w);
    } else {
        for (int k = i; k < n; k++)
            v += in[k];
    }
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < BLOCK_SIZE / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0)
            atomicAdd(total, v);
    }
"""),
}

WRONG.update({name: (answer, {"test_speed"}) for name, answer in GAMING.items()})
RIGHT.update(FAST_BY_CONSTRUCTION)

FULL = max_points(NOTEBOOK)

# the tests every exercise runs on its answers (all graded in one scorer run); the solution's
# is part of the one below that also grades the blank kernel
STANDARD = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel=KERNEL)
test_wrong_answer_loses_points = STANDARD.test_wrong_answer_loses_points
test_right_answer_full_marks = STANDARD.test_right_answer_full_marks
test_every_answer_compiles_with_nvcc = STANDARD.test_every_answer_compiles_with_nvcc


def test_the_exercise_is_worth_ten_points():
    assert sum(FULL.values()) == 10


def _h200_times():
    """{(answer, n): median ms} of ex08's answers timed on an H200 (course/data)."""
    data = json.loads((NOTEBOOK.parents[2] / "course/data/h200-timing-sweeps.json").read_text())
    return {(r["name"], r["n"]): r["median_ms"] for r in data["ex08_answers"]}


HIDDEN_N = 3_000_017


@pytest.mark.parametrize("name", sorted({"solution", *RIGHT, *GAMING, "starting_kernel", "tree_at_512",
                                         "atomic_per_thread", "shuffle_at_128", "atomic_per_warp"}))
def test_speed_points_go_to_exactly_the_answers_an_h200_runs_within_the_factor(name):
    """The H200 (CuPy events) decides who deserves the speed points: within 1.3x of the
    solution's measured time at both problem sizes the speed cell tests. The MODEL's verdict
    (within FACTOR x of its estimate of the solution, at both sizes) must be the same, for
    every answer measured."""
    from barrier_course.grading.speed_grading import estimate_launch

    gpu = _h200_times()
    consts = _setup_constants()
    source = answer_template(NOTEBOOK) if name == "solution" else kernel_with(NOTEBOOK, RIGHT.get(name) or WRONG[name][0])
    block = int(source.split("#define BLOCK_SIZE", 1)[1].split()[0])
    sizes = (consts["SPEED_N"], HIDDEN_N)
    deserves = all(gpu[(name, n)] <= 1.3 * gpu[("solution", n)] for n in sizes)
    ratios = {n: estimate_launch(source, KERNEL, make_args=_setup_namespace()["sum_args"], n=n, block=block).time_ms
              / _solution_estimate(n) for n in sizes}
    gets = all(r <= consts["FACTOR"] for r in ratios.values())
    assert gets == deserves, (name, ratios, {n: gpu[(name, n)] / gpu[("solution", n)] for n in sizes})


@functools.lru_cache(maxsize=None)
def _solution_estimate(n):
    from barrier_course.grading.speed_grading import estimate_launch
    return estimate_launch(answer_template(NOTEBOOK), KERNEL, make_args=_setup_namespace()["sum_args"], n=n,
                           block=1024).time_ms


def test_the_hidden_speed_test_runs_at_another_grid_with_the_solutions_estimate():
    """A kernel fast only at SPEED_N's grid fails the hidden test: it runs at HIDDEN_N, whose
    limit is FACTOR x the solution's MODEL estimate there."""
    from barrier_course.grading.speed_grading import estimate_launch

    nb = json.loads(NOTEBOOK.read_text())
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "test_speed")
    assert f"n={HIDDEN_N:_}" in cell and "0.0129" in cell
    est = estimate_launch(answer_template(NOTEBOOK), KERNEL, make_args=_setup_namespace()["sum_args"],
                          n=HIDDEN_N, block=1024)
    assert est.time_ms == pytest.approx(0.0129, abs=5e-5)


def _setup_namespace():
    ns = {}
    exec(compile(next("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]
                      if c["metadata"].get("nbgrader", {}).get("grade_id") == "setup")
                 .split("SPEED_N =")[0], "setup", "exec"), ns)
    return ns


def _setup_constants():
    nb = json.loads(NOTEBOOK.read_text())
    src = next("".join(c["source"]) for c in nb["cells"]
               if c["metadata"].get("nbgrader", {}).get("grade_id") == "setup")
    consts = {}
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("SPEED_N", "REFERENCE_MS", "FACTOR"):
            consts[node.targets[0].id] = eval(compile(ast.Expression(node.value), "setup", "eval"))
    return consts


def test_reference_time_is_the_solutions_model_estimate():
    """The limit printed to students comes from the model: when the model changes, this fails
    until REFERENCE_MS is updated (and the starting kernel must still miss the limit)."""
    from barrier_course.grading.speed_grading import estimate_launch

    consts = _setup_constants()
    ns = {}
    exec(compile(next("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]
                      if c["metadata"].get("nbgrader", {}).get("grade_id") == "setup")
                 .split("SPEED_N =")[0], "setup", "exec"), ns)
    solution = answer_template(NOTEBOOK)
    est = estimate_launch(solution, KERNEL, make_args=ns["sum_args"], n=consts["SPEED_N"], block=1024)
    assert est.time_ms == pytest.approx(consts["REFERENCE_MS"], abs=5e-5)
    again = estimate_launch(solution, KERNEL, make_args=ns["sum_args"], n=consts["SPEED_N"], block=1024)
    assert again.time_ms == est.time_ms        # deterministic: the same estimate every run


def test_the_solution_gets_full_marks_and_the_blank_release_none():
    STANDARD.test_solution_full_marks()
    blank = grade(NOTEBOOK, kernel_with(NOTEBOOK, '__simcore_todo("YOUR CODE HERE: replace this line with your code");'))
    assert all(p == 0 for p, _ in blank.values()), blank
    assert all(m.strip().splitlines()[0].startswith("Exercise not done yet") for _, m in blank.values()), blank


@pytest.mark.parametrize("name", ["starting_kernel", "atomic_per_thread", "shuffle_at_128", "atomic_per_warp",
                                  *GAMING])
def test_a_correct_but_slow_kernel_loses_only_the_speed_points(name):
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG[name][0]))
    assert {k for k, (p, _) in scores.items() if p < FULL[k]} == {"test_speed"}, scores
    assert "too slow on the H200 MODEL" in scores["test_speed"][1]


def test_a_fast_racy_kernel_gets_no_speed_points_and_says_why():
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG["no_barrier_before_warp_zero"][0]))
    assert scores["test_speed"][0] == 0
    assert "No points for speed" in scores["test_speed"][1]


def test_missing_block_size_is_told_in_one_line():
    answer = WRONG["atomic_per_warp"][0].replace("#define BLOCK_SIZE 1024\n", "").replace("BLOCK_SIZE", "blockDim.x")
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, answer))
    assert all(p == 0 for p, _ in scores.values()), scores
    assert "#define BLOCK_SIZE" in scores["test_easy_sizes"][1].splitlines()[0]
