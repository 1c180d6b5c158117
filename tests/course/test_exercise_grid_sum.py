"""Exercise 7 (a sum over the whole grid): wrong answers lose points, right answers written in
other ways than the solution get all of them.

Each answer is what a student writes in place of the solution region of
solutions/ex07_grid_wide_sum: the end of the kernel, after the block's own sum is in s[0].
"""

from exercise_answers import (grade, kernel_with, max_points, solution_notebook,
                              standard_answer_tests)

NOTEBOOK = solution_notebook("ex07_grid_wide_sum")
KERNEL = "grid_sum"

SUM_PARTIALS = """
    float sum = 0.0f;
    for (int b = 0; b < gridDim.x; b++)
        sum += partial[b];
    *total = sum;
"""


def last_block(publish, condition="ticket == gridDim.x - 1"):
    """Thread 0 publishes (`publish` sets `ticket`), a shared flag tells the block."""
    return ("__shared__ bool last_block;\nif (t == 0) {\n    partial[blockIdx.x] = s[0];\n"
            + "".join("    " + line + "\n" for line in publish.strip("\n").splitlines())
            + f"    last_block = ({condition});\n}}\n__syncthreads();\nif (last_block && t == 0) {{"
            + SUM_PARTIALS + "}\n")


FENCE_THEN_TICKET = "__threadfence();\nunsigned int ticket = atomicAdd(arrived, 1u);"

# name: (answer, the grade cell that must fail)
WRONG = {
    # the starting kernel: block 0 reads the others' partial sums after its own barrier
    "starting_kernel": ("""
if (t == 0)
    partial[blockIdx.x] = s[0];
__syncthreads();
if (blockIdx.x == 0 && t == 0) {""" + SUM_PARTIALS + "}\n", "test_few_blocks"),
    # the ticket without the fence: the last block may read a partial sum not yet visible
    "ticket_without_fence": (last_block("unsigned int ticket = atomicAdd(arrived, 1u);"),
                             "test_few_blocks"),
    # the fence after the ticket: the ticket may be seen before the partial sum
    "fence_after_ticket": (last_block("unsigned int ticket = atomicAdd(arrived, 1u);\n__threadfence();"),
                           "test_few_blocks"),
    # off by one: no block ever gets ticket gridDim.x, so nobody sums
    "ticket_off_by_one": (last_block(FENCE_THEN_TICKET, "ticket == gridDim.x"), "test_few_blocks"),
    # "the block with the highest index runs last": nothing says so
    "highest_block_sums": ("""
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
}
__syncthreads();
if (blockIdx.x == gridDim.x - 1 && t == 0) {""" + SUM_PARTIALS + "}\n", "test_few_blocks"),
    # a fence instead of the ticket: it orders this block's writes, it waits for nobody
    "fence_instead_of_ticket": ("""
if (t == 0)
    partial[blockIdx.x] = s[0];
__threadfence();
__syncthreads();
if (blockIdx.x == 0 && t == 0) {""" + SUM_PARTIALS + "}\n", "test_few_blocks"),
    # every block adds into total without an atomic: a read-modify-write race between blocks
    "plain_add_to_total": ("""
if (t == 0)
    *total += s[0];
""", "test_few_blocks"),
    # the shared flag is read by another thread without a barrier after thread 0 writes it
    "flag_without_barrier": ("""
__shared__ bool last_block;
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned int ticket = atomicAdd(arrived, 1u);
    last_block = (ticket == gridDim.x - 1);
}
if (last_block && t == 1) {""" + SUM_PARTIALS + "}\n", "test_few_blocks"),
    # every thread takes a ticket: the "last" one belongs to some thread of some block,
    # whose own thread 0 may not have published yet
    "every_thread_takes_a_ticket": ("""
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
}
unsigned int ticket = atomicAdd(arrived, 1u);
if (ticket == gridDim.x - 1) {""" + SUM_PARTIALS + "}\n", "test_few_blocks"),
    # block 0 spins until every block has arrived: fine while all blocks fit on the GPU at
    # once, a hang when some can only start after block 0 has finished
    "block_zero_spins": ("""
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    atomicAdd(arrived, 1u);
}
if (blockIdx.x == 0 && t == 0) {
    while (atomicAdd(arrived, 0u) < gridDim.x) { }""" + SUM_PARTIALS + "}\n", "test_many_blocks"),
    # almost right: the last block adds the partial sums in an int (the issue's "friendly data"
    # class: on integer-valued inputs this was exact and kept full marks)
    "int_accumulator": (last_block(FENCE_THEN_TICKET).replace("float sum = 0.0f;", "int sum = 0;"),
                        "test_few_blocks"),
}

RIGHT = {
    # one atomic add per block: right, and full marks (the tests do not ask for the pattern)
    "atomic_add_per_block": """
if (t == 0)
    atomicAdd(total, s[0]);
""",
    # thread 0 does everything: the ticket never has to leave its register
    "thread_zero_alone": """
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    if (atomicAdd(arrived, 1u) == gridDim.x - 1) {""" + SUM_PARTIALS + """    }
}
""",
    # CUDA's sample: atomicInc, and the whole last block reduces the partial sums in parallel
    "last_block_reduces_in_parallel": """
__shared__ unsigned int ticket;
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    ticket = atomicInc(arrived, gridDim.x);
}
__syncthreads();
if (ticket == gridDim.x - 1) {
    float v = 0.0f;
    for (int b = t; b < gridDim.x; b += blockDim.x)
        v += partial[b];
    s[t] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        *total = s[0];
}
""",
    # the ticket reaches the block through a barrier with a vote
    "ticket_by_syncthreads_or": """
bool mine_last = false;
if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    mine_last = atomicAdd(arrived, 1u) == gridDim.x - 1;
}
if (__syncthreads_or(mine_last) && t == 0) {""" + SUM_PARTIALS + "}\n",
}

FULL = max_points(NOTEBOOK)

# the tests every exercise runs on its answers (all graded in one scorer run)
(test_solution_full_marks, test_wrong_answer_loses_points, test_right_answer_full_marks,
 test_every_answer_compiles_with_nvcc) = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel=KERNEL)


def test_the_exercise_is_worth_ten_points():
    assert sum(FULL.values()) == 10


def test_partial_credit_for_a_spin_wait():
    """Spinning happens to work while every block is resident and runs now and then: the
    few-blocks test passes; many blocks (and a schedule that lets the spinning warp run on)
    make it hang."""
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG["block_zero_spins"][0]))
    assert scores["test_few_blocks"][0] == FULL["test_few_blocks"], scores
    assert scores["test_many_blocks"][0] == 0, scores
    # the simulator recognises the endless wait (the same state twice): kind step_limit
    assert "[step_limit]" in scores["test_many_blocks"][1] and "Endless loop" in scores["test_many_blocks"][1], scores
