"""Exercise 5 (legacy warp-synchronous code): wrong answers lose points, right answers written
in other ways than the solution get all of them.

Each answer is what a student writes in place of the solution region of
solutions/ex05_legacy_warp_sync: the body of ``if (t < 32)``, where warp 0 folds the partial
sums s[0..63] into s[0].
"""

from exercise_answers import grade, kernel_with, max_points, solution_notebook, standard_answer_tests

NOTEBOOK = solution_notebook("ex05_legacy_warp_sync")
KERNEL = "center_tiles"


def folded(step):
    """The six steps, offset 32 down to 1, each written by `step(offset)`."""
    return "".join(step(offset) for offset in (32, 16, 8, 4, 2, 1))


# name: (answer, the grade cell that must fail)
WRONG = {
    # the starting kernel: volatile and no synchronisation at all
    "starting_kernel": ("volatile float *vs = s;\n"
                        + folded(lambda o: f"vs[t] += vs[t + {o}];\n"), "test_one_block_size"),
    # a __syncwarp() after every line: lane t still reads s[t + o] while lane t + o writes it
    # on the same line
    "syncwarp_after_each_line": ("volatile float *vs = s;\n"
                                 + folded(lambda o: f"vs[t] += vs[t + {o}]; __syncwarp();\n"),
                                 "test_one_block_size"),
    # the same mistake as a loop, without volatile
    "read_and_write_on_one_line": ("""
for (int offset = 32; offset > 0; offset /= 2) {
    s[t] = s[t] + s[t + offset];
    __syncwarp();
}
""", "test_one_block_size"),
    # a block barrier inside if (t < 32): only warp 0 gets there (a divergent barrier)
    "syncthreads_in_warp_branch": ("""
float v = s[t];
for (int offset = 32; offset > 0; offset /= 2) {
    v += s[t + offset];
    __syncthreads();
    s[t] = v;
    __syncthreads();
}
""", "test_one_block_size"),
    # only the first __syncwarp of each step: the next step's reads race with this step's writes
    "missing_second_syncwarp": ("""
float v = s[t];
for (int offset = 32; offset > 0; offset /= 2) {
    v += s[t + offset];
    __syncwarp();
    s[t] = v;
}
""", "test_one_block_size"),
    # a mask naming only lanes 0-15, while all 32 lanes call __syncwarp (invalid mask)
    "half_warp_mask": ("""
float v = s[t];
for (int offset = 32; offset > 0; offset /= 2) {
    v += s[t + offset];
    __syncwarp(0x0000ffff);
    s[t] = v;
    __syncwarp(0x0000ffff);
}
""", "test_one_block_size"),
    # __syncwarp() with the full mask under a lane condition: lanes >= offset never call it
    "syncwarp_under_lane_condition": ("""
for (int offset = 32; offset > 0; offset /= 2) {
    if (t < offset) {
        float v = s[t] + s[t + offset];
        __syncwarp();
        s[t] = v;
        __syncwarp();
    }
}
""", "test_one_block_size"),
    # __syncwarp(__activemask()): the mask names the lanes that happen to run together, which a GPU
    # (and the adversarial schedule) may split in parts; each part's __syncwarp orders only itself
    "syncwarp_activemask": ("""
float v = s[t];
for (int offset = 32; offset > 0; offset /= 2) {
    v += s[t + offset];
    __syncwarp(__activemask());
    s[t] = v;
    __syncwarp(__activemask());
}
""", "test_every_schedule"),
    # the same inside a lane condition: the lanes still adding, as __activemask() "sees" them
    "syncwarp_activemask_under_lane_condition": ("""
for (int offset = 32; offset > 0; offset /= 2) {
    if (t < offset) {
        float v = s[t] + s[t + offset];
        __syncwarp(__activemask());
        s[t] = v;
        __syncwarp(__activemask());
    }
}
""", "test_every_schedule"),
    # a fence is not a barrier: it orders this lane's accesses, it waits for nobody
    "fence_instead_of_syncwarp": ("volatile float *vs = s;\n"
                                  + folded(lambda o: f"vs[t] += vs[t + {o}]; __threadfence_block();\n"),
                                  "test_one_block_size"),
    # off by one: starts at offset 16, so s[32..63] are never added
    "starts_at_16": ("""
float v = s[t];
for (int offset = 16; offset > 0; offset /= 2) {
    v += s[t + offset];
    __syncwarp();
    s[t] = v;
    __syncwarp();
}
""", "test_one_block_size"),
    # off by one: stops before offset 1, so s[1] is never added to s[0]
    "stops_before_1": ("""
float v = s[t];
for (int offset = 32; offset > 1; offset /= 2) {
    v += s[t + offset];
    __syncwarp();
    s[t] = v;
    __syncwarp();
}
""", "test_one_block_size"),
    # shuffles without the upper half: s[32..63] never enter the sum
    "shuffle_forgets_upper_half": ("""
float v = s[t];
for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
if (t == 0) s[0] = v;
""", "test_one_block_size"),
    # almost right: the partial sum kept in an int register (every step truncates; integer-valued
    # test data hid it)
    "int_register": ("""
int v = s[t];
for (int offset = 32; offset > 0; offset /= 2) {
    v += s[t + offset];
    __syncwarp();
    s[t] = v;
    __syncwarp();
}
""", "test_one_block_size"),
}

RIGHT = {
    # NVIDIA's Volta porting recipe: read into a register, sync, write, sync; unrolled
    "unrolled_volatile_with_syncwarp": "volatile float *vs = s;\nfloat v = vs[t];\n" + folded(
        lambda o: f"v += vs[t + {o}]; __syncwarp(); vs[t] = v;"
                  + (" __syncwarp();\n" if o > 1 else "\n")),
    # only the lanes that still add do work; the __syncwarp()s stay outside the condition
    "predicated_lanes": """
for (int offset = 32; offset > 0; offset /= 2) {
    float v = 0.0f;
    if (t < offset)
        v = s[t] + s[t + offset];
    __syncwarp(0xffffffff);
    if (t < offset)
        s[t] = v;
    __syncwarp(0xffffffff);
}
""",
    # no shared memory traffic inside the warp at all: shuffles
    "shuffle_down": """
float v = s[t] + s[t + 32];
for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
if (t == 0)
    s[0] = v;
""",
    # a butterfly: every lane ends with the sum, lane 0 stores it
    "shuffle_xor": """
float v = s[t] + s[t + 32];
for (int mask = 1; mask < 32; mask *= 2)
    v += __shfl_xor_sync(0xffffffff, v, mask);
if (t == 0)
    s[0] = v;
""",
    # one lane does it all: slow, but nobody else touches the slots, so nothing races
    "lane_zero_alone": """
if (t == 0) {
    float v = 0.0f;
    for (int k = 0; k < 64; ++k)
        v += s[k];
    s[0] = v;
}
""",
}

FULL = max_points(NOTEBOOK)

# the tests every exercise runs on its answers (all graded in one scorer run)
(test_solution_full_marks, test_wrong_answer_loses_points, test_right_answer_full_marks,
 test_every_answer_compiles_with_nvcc) = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel=KERNEL)


def test_the_exercise_is_worth_ten_points():
    assert sum(FULL.values()) == 10


def test_syncwarp_activemask_is_a_race_report_that_names_the_activemask():
    """__syncwarp(__activemask()) under the adversarial schedule orders only the part of the warp
    that ran it together: the first thing the grade report shows is the race between two lanes
    of warp 0 (before any wrong number), and its fix names the __activemask() the mask came from."""
    for name in ("syncwarp_activemask", "syncwarp_activemask_under_lane_condition"):
        _, failure = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG[name][0]))["test_every_schedule"]
        assert failure.startswith("========= simcore: Data race") and "(warp 0, lane" in failure, \
            (name, failure[:2000])
        assert "schedule: adversarial" in failure and "If the mask came from __activemask() on line" in failure, \
            (name, failure[:2000])
