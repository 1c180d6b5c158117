"""Exercise 6 (named barriers in a producer/consumer pipeline): wrong answers lose points,
right answers written in other ways than the solution get all of them.

Each answer is what a student writes in place of the solution region of
solutions/ex06_named_barrier_pipeline: the four hand-off functions signal_full,
wait_until_full, signal_empty and wait_until_empty of buffer b.
"""

import pytest

from exercise_answers import (grade, kernel_with, max_points, solution_notebook,
                              standard_answer_tests)

NOTEBOOK = solution_notebook("ex06_named_barrier_pipeline")
KERNEL = "reverse_tiles"


def handoffs(signal_full, wait_full, signal_empty, wait_empty):
    """The four functions, each body given as a C statement."""
    return (f"__device__ void signal_full(int b)      {{ {signal_full} }}\n"
            f"__device__ void wait_until_full(int b)  {{ {wait_full} }}\n"
            f"__device__ void signal_empty(int b)     {{ {signal_empty} }}\n"
            f"__device__ void wait_until_empty(int b) {{ {wait_empty} }}\n")


def named(full="1 + b", empty="3 + b", count="blockDim.x", empty_count=None,
          signal="bar_arrive", wait="bar_sync", empty_signal=None, full_wait=None):
    """The solution's shape with one ingredient changed."""
    ec = empty_count or count
    return handoffs(f"{signal}({full}, {count});", f"{full_wait or wait}({full}, {count});",
                    f"{empty_signal or signal}({empty}, {ec});", f"{wait}({empty}, {ec});")


# name: (answer, the grade cell that must fail)
WRONG = {
    # the starting kernel: barrier 0 reached at different calls by producers and consumers
    "starting_kernel": (handoffs(*["__syncthreads();"] * 4), "test_first_tiles"),
    # the count of one side only (the group is twice as large): too many arrivals in one phase
    "count_of_one_side": (named(count="blockDim.x / 2"), "test_every_schedule"),
    # a count larger than the group: the barrier waits for threads that never come (deadlock)
    "count_too_large": (named(count="blockDim.x + 32"), "test_first_tiles"),
    # a count that is not a multiple of 32 (an illegal instruction on an H200)
    "count_not_multiple_of_32": (named(count="blockDim.x - 1"), "test_first_tiles"),
    # the count of the 128-thread block the student tried: wrong for every other block size
    "count_hard_coded_128": (named(count="128"), "test_block_sizes"),
    # one id for both buffers' full hand-offs: the producers' two arrivals fill one phase
    "one_full_id_for_both_buffers": (named(full="1"), "test_first_tiles"),
    # one id for both buffers' empty hand-offs: the consumers signal empty after tile 0 and again
    # after tile 1 with nothing in between that waits for the first; when they run ahead of the
    # producers the two signals are one phase, and the producers' wait for tile 2 is never counted
    "one_empty_id_for_both_buffers": (named(empty="3"), "test_buffer_reuse"),
    # one id per direction (full, empty) instead of one per hand-off
    "one_full_id_and_one_empty_id": (named(full="1", empty="3"), "test_first_tiles"),
    # one id for all four hand-offs
    "one_id_for_all_four": (named(full="1", empty="1"), "test_first_tiles"),
    # full[b] and empty[b] share an id: a producer's wait for "empty" completes a "full" phase
    "full_and_empty_share_an_id": (named(empty="1 + b"), "test_buffer_reuse"),
    # ids 15 and 16: PTX has barriers 0 to 15 only
    "id_out_of_range": (named(full="15 + b", empty="13 + b"), "test_first_tiles"),
    # the consumers do not wait for the data: they read the buffer while it is written
    "consumers_do_not_wait": (named(full_wait="bar_arrive"), "test_first_tiles"),
    # the signalling side waits too: consumers wait for producers that wait for them (deadlock)
    "signal_with_bar_sync": (named(signal="bar_sync"), "test_buffer_reuse"),
    # no empty hand-off at all: the producers overwrite a buffer the consumers still read
    "no_empty_handoff": (handoffs("bar_arrive(1 + b, blockDim.x);", "bar_sync(1 + b, blockDim.x);",
                                  "", ""), "test_buffer_reuse"),
    # the empty hand-off counts the consumers only: it lets the producers through too early
    "empty_count_of_one_side": (named(empty_count="blockDim.x / 2"), "test_buffer_reuse"),
}

RIGHT = {
    # other ids, interleaved: full[b] = 5 + 2b, empty[b] = 6 + 2b
    "interleaved_ids": named(full="5 + 2 * b", empty="6 + 2 * b"),
    # the count from the warp count, and ids chosen with a conditional
    "count_from_warps": named(full="(b == 0) ? 9 : 12", empty="(b == 0) ? 10 : 11",
                              count="32 * (blockDim.x / 32)"),
    # the inline PTX written out in every function (no helpers), ids from macros
    "own_inline_ptx": """
#define FULL_ID(b)  (2 + (b))
#define EMPTY_ID(b) (14 - (b))
__device__ void signal_full(int b)
{
    asm volatile("bar.arrive %0, %1;" :: "r"(FULL_ID(b)), "r"(blockDim.x) : "memory");
}
__device__ void wait_until_full(int b)
{
    asm volatile("bar.sync %0, %1;" :: "r"(FULL_ID(b)), "r"(blockDim.x) : "memory");
}
__device__ void signal_empty(int b)
{
    asm volatile("bar.arrive %0, %1;" :: "r"(EMPTY_ID(b)), "r"(blockDim.x) : "memory");
}
__device__ void wait_until_empty(int b)
{
    asm volatile("bar.sync %0, %1;" :: "r"(EMPTY_ID(b)), "r"(blockDim.x) : "memory");
}
""",
    # the count as producers + consumers, spelled out
    "count_as_both_sides": named(count="blockDim.x / 2 + blockDim.x / 2"),
}

FULL = max_points(NOTEBOOK)

# the tests every exercise runs on its answers (all graded in one scorer run)
(test_solution_full_marks, test_wrong_answer_loses_points, test_right_answer_full_marks,
 test_every_answer_compiles_with_nvcc) = standard_answer_tests(NOTEBOOK, WRONG, RIGHT, kernel=KERNEL)


def test_the_exercise_is_worth_ten_points():
    assert sum(FULL.values()) == 10


def test_partial_credit_for_a_count_that_fits_one_block_size():
    """A hard-coded count is right for its own block size: only the block-size test fails."""
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG["count_hard_coded_128"][0]))
    lost = {k for k, (p, _) in scores.items() if p < FULL[k]}
    assert lost == {"test_block_sizes"}, scores


def test_partial_credit_without_the_empty_handoff():
    """Without the empty hand-off the first two tiles are still right (no buffer is reused)."""
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG["no_empty_handoff"][0]))
    assert scores["test_first_tiles"][0] == FULL["test_first_tiles"], scores
    assert sum(p for p, _ in scores.values()) < sum(FULL.values()), scores


# answers that use one barrier id for two hand-offs that can be in flight at once: the report
# the student reads first is the second arrival at that id (docs/semantics.md, section 2)
REUSED_IDS = {"one_full_id_for_both_buffers": 1, "one_empty_id_for_both_buffers": 3,
              "one_full_id_and_one_empty_id": 1, "one_id_for_all_four": 1}


@pytest.mark.parametrize("name", sorted(REUSED_IDS))
def test_a_barrier_id_used_for_two_hand_offs_is_named_first(name):
    answer, cell = WRONG[name]
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, answer))
    points, message = scores[cell]
    assert points == 0, scores
    head = message.lstrip().splitlines()
    assert head[0].startswith(f"========= simcore: Named barrier {REUSED_IDS[name]} misused"), message[:800]
    assert f"arrive at barrier {REUSED_IDS[name]} again" in message, message[:1500]


def test_partial_credit_for_one_empty_id():
    """One id for both empty hand-offs is only wrong once a buffer is reused twice: the first
    tiles keep their points, every test with four tiles or more loses them."""
    scores = grade(NOTEBOOK, kernel_with(NOTEBOOK, WRONG["one_empty_id_for_both_buffers"][0]))
    lost = {k for k, (p, _) in scores.items() if p < FULL[k]}
    assert lost == {"test_buffer_reuse", "test_every_schedule", "test_block_sizes"}, scores
