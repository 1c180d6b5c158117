"""Exercise 2 (a barrier inside a loop with per-thread trip counts): wrong answers lose points,
right answers written in other ways than the solution get all of them.

Each answer is what a student writes in place of the solution region of
solutions/ex02_loop_trip_counts (after ``int acc = 0;``, before the store to ``out``).
"""

from exercise_answers import solution_notebook, standard_answer_tests

NOTEBOOK = solution_notebook("ex02_loop_trip_counts")

ROUND_BODY = """
    tile[t] = {fill};
    __syncthreads();
    int left = (t > 0) ? tile[t - 1] : 0;
    int right = (t + 1 < blockDim.x) ? tile[t + 1] : 0;
    acc += left + right;
    __syncthreads();
"""
PREDICATED = "(k < my_count) ? readings[k * n + g] : 0"


def rounds_loop(header, fill=PREDICATED):
    return header + " {" + ROUND_BODY.format(fill=fill) + "}\n"


BLOCK_MAX = """
if (t == 0) block_max = 0;
__syncthreads();
atomicMax(&block_max, my_count);
__syncthreads();
int rounds = block_max;
"""
UP_TO_ROUNDS = "for (int k = 0; k < rounds; ++k)"

# name: (answer, the grade cell that must fail)
WRONG = {
    # the starting kernel: each thread loops over its own count (deadlock)
    "per_thread_loop": (rounds_loop("for (int k = 0; k < my_count; ++k)", "readings[k * n + g]"),
                        "test_random_counts"),
    # uniform loop, but every thread reads a reading in every round (slots past its count)
    "no_predicate": (BLOCK_MAX + rounds_loop(UP_TO_ROUNDS, "readings[k * n + g]"),
                     "test_random_counts"),
    # predicated write but no neutral value: finished threads leave a stale (or unwritten) slot
    "no_neutral_fill": (BLOCK_MAX + """
for (int k = 0; k < rounds; ++k) {
    if (k < my_count)
        tile[t] = readings[k * n + g];
    __syncthreads();
    int left = (t > 0) ? tile[t - 1] : 0;
    int right = (t + 1 < blockDim.x) ? tile[t + 1] : 0;
    acc += left + right;
    __syncthreads();
}
""", "test_edge_cases"),
    # uniform loop, but the barriers sit under the per-thread condition
    "barrier_under_condition": (BLOCK_MAX + """
for (int k = 0; k < rounds; ++k) {
    if (k < my_count) {
        tile[t] = readings[k * n + g];
        __syncthreads();
        int left = (t > 0) ? tile[t - 1] : 0;
        int right = (t + 1 < blockDim.x) ? tile[t + 1] : 0;
        acc += left + right;
        __syncthreads();
    }
}
""", "test_random_counts"),
    # uniform per warp only: warps that finish early leave stale slots for the next warp
    "warp_max_only": ("""
int rounds = my_count;
for (int offset = 16; offset > 0; offset /= 2)
    rounds = max(rounds, __shfl_xor_sync(0xffffffff, rounds, offset));
""" + rounds_loop(UP_TO_ROUNDS), "test_counts_per_warp"),
    # no barrier between the atomicMax updates and the read of block_max
    "no_barrier_after_max": ("""
if (t == 0) block_max = 0;
__syncthreads();
atomicMax(&block_max, my_count);
int rounds = block_max;
""" + rounds_loop(UP_TO_ROUNDS), "test_schedules_and_models"),
    # no barrier between thread 0's reset and the other threads' updates
    "no_barrier_after_reset": ("""
if (t == 0) block_max = 0;
atomicMax(&block_max, my_count);
__syncthreads();
int rounds = block_max;
""" + rounds_loop(UP_TO_ROUNDS), "test_schedules_and_models"),
    # block_max never reset: its first value is whatever shared memory held
    "no_reset": ("""
atomicMax(&block_max, my_count);
__syncthreads();
int rounds = block_max;
""" + rounds_loop(UP_TO_ROUNDS), "test_random_counts"),
    # a fence is not a barrier: it orders this thread's accesses, it waits for nobody
    "fence_instead_of_barrier": ("""
if (t == 0) block_max = 0;
__syncthreads();
atomicMax(&block_max, my_count);
__threadfence_block();
int rounds = block_max;
""" + rounds_loop(UP_TO_ROUNDS), "test_schedules_and_models"),
    # off by one: a thread shares one reading too many (the NO_READING slot)
    "off_by_one_predicate": (BLOCK_MAX + rounds_loop(UP_TO_ROUNDS, "(k <= my_count) ? readings[k * n + g] : 0"),
                             "test_random_counts"),
    # uniform, but the wrong number of rounds: the block's first thread's count
    "first_thread_count": ("""
int rounds = counts[blockIdx.x * blockDim.x];
""" + rounds_loop(UP_TO_ROUNDS), "test_edge_cases"),
    # the second barrier missing: round k+1's write races with round k's neighbour reads
    "missing_second_barrier": (BLOCK_MAX + """
for (int k = 0; k < rounds; ++k) {
    tile[t] = (k < my_count) ? readings[k * n + g] : 0;
    __syncthreads();
    int left = (t > 0) ? tile[t - 1] : 0;
    int right = (t + 1 < blockDim.x) ? tile[t + 1] : 0;
    acc += left + right;
}
""", "test_schedules_and_models"),
}

RIGHT = {
    # the solution's shape (block_max with atomicMax and two barriers)
    "atomic_block_max": BLOCK_MAX + rounds_loop(UP_TO_ROUNDS),
    # the given bound: every thread runs MAX_ROUNDS rounds
    "max_rounds_constant": rounds_loop("for (int k = 0; k < MAX_ROUNDS; ++k)"),
    # the loop condition itself is a block-wide vote (a barrier every thread reaches)
    "syncthreads_or_condition": rounds_loop("for (int k = 0; __syncthreads_or(k < my_count); ++k)"),
    "syncthreads_count_condition": rounds_loop(
        "for (int k = 0; __syncthreads_count(k < my_count) > 0; ++k)"),
    # a max tree in the tile, then the rounds
    "tree_max_in_tile": """
tile[t] = my_count;
__syncthreads();
for (int stride = 1; stride < blockDim.x; stride *= 2) {
    int other = (t + stride < blockDim.x) ? tile[t + stride] : 0;
    __syncthreads();
    tile[t] = max(tile[t], other);
    __syncthreads();
}
int rounds = tile[0];
__syncthreads();   // everyone has read tile[0] before round 0 overwrites it
""" + rounds_loop(UP_TO_ROUNDS),
    # every thread reads the block's counts from global memory (no barrier needed)
    "serial_scan_of_counts": """
int rounds = 0;
int first = blockIdx.x * blockDim.x;
for (int j = first; j < first + (int)blockDim.x && j < n; ++j)
    rounds = max(rounds, counts[j]);
""" + rounds_loop(UP_TO_ROUNDS),
    # warp maxima by shuffles, then one atomicMax per warp
    "warp_then_block_max": """
int m = my_count;
for (int offset = 16; offset > 0; offset /= 2)
    m = max(m, __shfl_xor_sync(0xffffffff, m, offset));
if (t == 0) block_max = 0;
__syncthreads();
if (t % 32 == 0) atomicMax(&block_max, m);
__syncthreads();
int rounds = block_max;
""" + rounds_loop(UP_TO_ROUNDS),
    # warp maxima with the warp-reduce intrinsic (compute capability 8.0+: the graded sm_90 has
    # it), then one atomicMax per warp
    "reduce_max_sync_then_atomic": """
int m = __reduce_max_sync(__ballot_sync(0xffffffff, 1), my_count);
if (t == 0) block_max = 0;
__syncthreads();
if (t % 32 == 0) atomicMax(&block_max, m);
__syncthreads();
int rounds = block_max;
""" + rounds_loop(UP_TO_ROUNDS),
    # the same with the unsigned overload, and the loop condition a block-wide vote on it
    "reduce_max_sync_unsigned_vote": """
unsigned m = __reduce_max_sync(__ballot_sync(0xffffffff, 1), (unsigned)my_count);
""" + rounds_loop("for (int k = 0; __syncthreads_or(k < (int)m); ++k)"),
}

# the tests every exercise runs on its answers (all graded in one scorer run)
(test_solution_full_marks, test_wrong_answer_loses_points, test_right_answer_full_marks,
 test_every_answer_compiles_with_nvcc) = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel="neighbour_sums")
