"""Warm grading interpreters (barrier_course/grading/pool.py): the scores of a fresh one."""

import os
import signal

import pytest

from barrier_course.grading.autograde import Limits, score_answer
from barrier_course.grading.pool import GradingPool, warm_grading_possible
from exercise_answers import answer_template, kernel_with, solution_notebook
from hostile_submissions import NO_BARRIER, RIGHT_WARNS

NOTEBOOK = solution_notebook("ex01_tail_handling")
SLOW = ("float acc = 0.0f;\nfor (int k = 0; k < 200000000; ++k) acc += (float)(k % 7);\n"
        "tile[t] = (i < n) ? in[i] : 0.0f * acc;\n__syncthreads();")

pytestmark = pytest.mark.skipif(not warm_grading_possible(),
                                reason="warm grading needs fork and no CuPy (else answers are "
                                       "graded by score_answer, tested in test_autograde_api.py)")


def _comparable(score):
    """The score without its timings (seconds differ from run to run)."""
    data = score.to_dict()
    data.pop("wall_s")
    for cell in data["cells"]:
        cell.pop("seconds")
    return data


def test_warm_pool_scores_right_wrong_and_warning_answers_as_a_fresh_interpreter_does():
    sources = [answer_template(NOTEBOOK), kernel_with(NOTEBOOK, NO_BARRIER),
               kernel_with(NOTEBOOK, RIGHT_WARNS)]
    with GradingPool() as pool:
        warm = [pool.score(NOTEBOOK, source) for source in sources]
    fresh = [score_answer(NOTEBOOK, source) for source in sources]
    assert [_comparable(s) for s in warm] == [_comparable(s) for s in fresh]
    assert [s.total for s in warm] == [10.0, 0.0, 10.0]


@pytest.mark.parametrize("limits", [Limits(cpu_s=3), Limits(wall_s=10.0)], ids=["cpu", "wall"])
def test_an_answer_past_its_limit_scores_as_in_a_fresh_interpreter_and_the_next_one_is_unharmed(limits):
    with GradingPool(limits) as pool:
        slow = pool.score(NOTEBOOK, kernel_with(NOTEBOOK, SLOW))
        after = pool.score(NOTEBOOK, answer_template(NOTEBOOK))
    fresh = score_answer(NOTEBOOK, kernel_with(NOTEBOOK, SLOW), limits=limits)
    assert slow.total == 0 and {c.status for c in slow.cells} == {"timeout"}
    assert slow.fault == fresh.fault and slow.timed_out == fresh.timed_out
    assert after.total == 10.0


def test_a_warm_interpreter_that_died_is_replaced_and_the_answer_still_graded():
    with GradingPool() as pool:
        first = pool.score(NOTEBOOK, kernel_with(NOTEBOOK, NO_BARRIER))
        for interpreter in pool.interpreters:
            os.killpg(interpreter.proc.pid, signal.SIGKILL)
            interpreter.proc.wait()
        again = pool.score(NOTEBOOK, answer_template(NOTEBOOK))
    assert first.total == 0 and again.total == 10.0 and again.fault is None


def test_a_refused_answer_is_refused_without_starting_an_interpreter():
    with GradingPool() as pool:
        score = pool.score(NOTEBOOK, "x" * (Limits().source_bytes + 1))
        assert not pool.interpreters
    assert score.total == 0 and "bytes long" in score.cells[0].error
