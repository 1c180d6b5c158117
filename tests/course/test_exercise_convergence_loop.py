"""Exercise 3 (a convergence loop with a racy "done" flag): wrong answers lose points, right
answers written in other ways than the solution get all of them.

Each answer is what a student writes in place of the solution region of
solutions/ex03_convergence_loop (after the first barrier, before the store to ``dist``).
"""

from exercise_answers import grade, kernel_with, max_points, solution_notebook, standard_answer_tests

NOTEBOOK = solution_notebook("ex03_convergence_loop")


def relax_loop(end, barrier_before_write=True):
    """while (true) { relax; barrier; write if smaller; <end> }: `end` decides when to leave."""
    body = ("int best = relaxed(d, t, g, n);\n"
            + ("__syncthreads();\n" if barrier_before_write else "")
            + "int improved = best < d[t];\nif (improved)\n    d[t] = best;\n" + end)
    return "while (true) {\n" + "".join("    " + line + "\n" for line in body.strip("\n").splitlines()) + "}\n"


# name: (answer, the grade cell that must fail)
WRONG = {
    # the starting kernel: every thread resets the flag while others may still read it
    "starting_kernel": ("""
do {
    changed = 0;
    int best = relaxed(d, t, g, n);
    __syncthreads();
    if (best < d[t]) {
        d[t] = best;
        changed = 1;
    }
    __syncthreads();
} while (changed);
""", "test_random_seeds"),
    # one reset by thread 0, atomic sets, but no barrier between the reads and the next reset
    "thread0_reset_two_barriers": ("""
do {
    if (t == 0) changed = 0;
    int best = relaxed(d, t, g, n);
    __syncthreads();
    if (best < d[t]) {
        d[t] = best;
        atomicOr(&changed, 1);
    }
    __syncthreads();
} while (changed);
""", "test_schedules_and_models"),
    # three barriers, but every thread stores its own verdict: 1s and 0s race, the last one wins
    "every_thread_stores_its_verdict": ("""
if (t == 0) changed = 0;
__syncthreads();
while (true) {
    int best = relaxed(d, t, g, n);
    __syncthreads();
    int improved = best < d[t];
    if (improved) d[t] = best;
    changed = improved;
    __syncthreads();
    int again = changed;
    __syncthreads();
    if (!again) break;
    if (t == 0) changed = 0;
}
""", "test_random_seeds"),
    # the flag is read before the barrier that ends the sets
    "flag_read_before_barrier": ("""
if (t == 0) changed = 0;
__syncthreads();
while (true) {
    int best = relaxed(d, t, g, n);
    __syncthreads();
    if (best < d[t]) { d[t] = best; atomicOr(&changed, 1); }
    int again = changed;
    __syncthreads();
    if (!again) break;
    __syncthreads();
    if (t == 0) changed = 0;
}
""", "test_schedules_and_models"),
    # a fence where the barrier after the sets belongs: it orders, it does not wait
    "fence_instead_of_barrier": ("""
if (t == 0) changed = 0;
__syncthreads();
while (true) {
    int best = relaxed(d, t, g, n);
    __syncthreads();
    if (best < d[t]) { d[t] = best; atomicOr(&changed, 1); }
    __threadfence_block();
    int again = changed;
    __syncthreads();
    if (!again) break;
    if (t == 0) changed = 0;
}
""", "test_schedules_and_models"),
    # the wrong vote: leaves as soon as some thread did not improve
    "and_instead_of_or": (relax_loop("if (__syncthreads_and(!improved) == 0)\n    break;"),
                          "test_random_seeds"),
    # the vote is the barrier after the writes, but the one between reads and writes is missing
    "no_barrier_before_write": (relax_loop("if (!__syncthreads_or(improved))\n    break;",
                                           barrier_before_write=False), "test_random_seeds"),
    # wrong count: stops while one cell still changes
    "count_off_by_one": (relax_loop("if (__syncthreads_count(improved) <= 1)\n    break;"),
                         "test_edge_cases"),
    # a warp vote decides for the warp only: warps leave the loop at different iterations
    "warp_vote_only": (relax_loop("__syncthreads();\nif (!__any_sync(0xffffffff, improved))\n    break;"),
                       "test_schedules_and_models"),
    # the block vote only in the threads that improved
    "vote_under_condition": (relax_loop("if (improved) {\n    if (!__syncthreads_or(improved))\n"
                                        "        break;\n} else {\n    break;\n}"),
                             "test_random_seeds"),
    # each thread decides on its own change only
    "own_change_only": (relax_loop("__syncthreads();\nif (!improved)\n    break;"),
                        "test_random_seeds"),
    # a fixed number of iterations: too few for long distances
    "fixed_iterations": ("""
for (int it = 0; it < 8; ++it) {
    int best = relaxed(d, t, g, n);
    __syncthreads();
    if (best < d[t]) d[t] = best;
    __syncthreads();
}
""", "test_edge_cases"),
}

RIGHT = {
    "syncthreads_or": relax_loop("if (!__syncthreads_or(improved))\n    break;"),
    "syncthreads_count": relax_loop("if (__syncthreads_count(improved) == 0)\n    break;"),
    "syncthreads_and": relax_loop("if (__syncthreads_and(!improved))\n    break;"),
    "do_while_vote": """
int improved;
do {
    int best = relaxed(d, t, g, n);
    __syncthreads();
    improved = best < d[t];
    if (improved) d[t] = best;
} while (__syncthreads_or(improved));
""",
    # a shared flag done right: atomic sets and a barrier between every reset, set and read
    "atomic_flag_three_barriers": """
if (t == 0) changed = 0;
__syncthreads();
while (true) {
    int best = relaxed(d, t, g, n);
    __syncthreads();                 // reads before writes; the reset before any set
    if (best < d[t]) { d[t] = best; atomicOr(&changed, 1); }
    __syncthreads();                 // every set before the reads
    int again = changed;
    __syncthreads();                 // every read before the next reset
    if (!again) break;
    if (t == 0) changed = 0;
}
""",
    "warp_vote_then_block_vote": relax_loop(
        "int warp_changed = __any_sync(0xffffffff, improved);\n"
        "if (!__syncthreads_or(warp_changed))\n    break;"),
}

# the tests every exercise runs on its answers (all graded in one scorer run)
(test_solution_full_marks, test_wrong_answer_loses_points, test_right_answer_full_marks,
 test_every_answer_compiles_with_nvcc) = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel="distance_to_seed")


# A shared flag with plain sets: every setter writes 1, so the flag ends at 1 in any order (PTX's
# memory model and the H200's racecheck agree); simcore warns that C++ calls it a race, and a
# warning costs no point. (Graded here rather than in RIGHT, whose answers are also timed on the
# H200 in course/data/h200-exercise-answers.json, which predates this answer.)
PLAIN_FLAG_SETS = """
if (t == 0) changed = 0;
__syncthreads();
while (true) {
    int best = relaxed(d, t, g, n);
    __syncthreads();
    if (best < d[t]) { d[t] = best; changed = 1; }
    __syncthreads();
    int again = changed;
    __syncthreads();
    if (!again) break;
    if (t == 0) changed = 0;
}
"""


def test_plain_same_value_flag_sets_with_three_barriers_get_full_marks():
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, PLAIN_FLAG_SETS))
    full = max_points(NOTEBOOK)
    failed = {k: m for k, (p, m) in scores.items() if p != full[k]}
    assert not failed, failed
