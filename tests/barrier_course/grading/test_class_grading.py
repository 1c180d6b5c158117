"""``tasks.py grade`` (barrier_course/grading/class_grading.py): what it checks before grading a class."""

import json
import shutil

import pytest

from barrier_course.grading import class_grading
from barrier_course.grading.pool import GradingPool
from course_testing import ASSIGNMENT, ROOT, copy_course, tool_env


@pytest.fixture
def course_with_a_submission(tmp_path, monkeypatch):
    """A course folder with one submitted notebook and no generated assignment; grading any
    answer fails the test (the check must come first)."""
    root = copy_course(tmp_path / "course")
    folder = root / "submitted" / "alice" / ASSIGNMENT
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder)
    (folder / "timestamp.txt").write_text("2025-01-01 12:00:00.000000 UTC")

    def no_grading(self, *args, **kwargs):
        raise AssertionError("an answer was graded before the gradebook was checked")

    monkeypatch.setattr(GradingPool, "score", no_grading)
    return root


def test_grading_without_a_gradebook_stops_before_grading_and_names_the_release_step(
        course_with_a_submission):
    with pytest.raises(SystemExit) as stop:
        class_grading.main([ASSIGNMENT, "--root", str(course_with_a_submission), "--jobs", "1"])
    message = str(stop.value)
    assert message.startswith("Nothing was graded") and "no gradebook" in message
    # the one command that records it: a bare `nbgrader generate_assignment` skips an assignment
    # whose release folder is committed and records nothing
    assert f"Run 'python3 tasks.py release {ASSIGNMENT}' first" in message
    assert "nbgrader generate_assignment" not in message


def test_grading_an_assignment_the_gradebook_lacks_stops_before_grading_and_names_it(
        course_with_a_submission, monkeypatch):
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", tool_env()["PATH"])     # nbgrader's gradebook runs alembic
    with Gradebook(f"sqlite:///{course_with_a_submission / 'gradebook.db'}") as gradebook:
        gradebook.add_assignment("some_other_assignment")
    with pytest.raises(SystemExit) as stop:
        class_grading.main([ASSIGNMENT, "--root", str(course_with_a_submission), "--jobs", "1"])
    message = str(stop.value)
    assert f"has no assignment '{ASSIGNMENT}'" in message
    assert f"Run 'python3 tasks.py release {ASSIGNMENT}' first" in message


def test_a_shard_needs_no_gradebook(course_with_a_submission, tmp_path, monkeypatch):
    """Shards only compute scores (the gather step writes the gradebook), so they grade."""
    monkeypatch.setattr(GradingPool, "score", lambda self, nb, answers: class_grading.refused_score(
        class_grading.trusted_program(nb), "refused", "not graded in this test", "AnswerError"))
    scores = tmp_path / "scores"
    assert class_grading.main([ASSIGNMENT, "--root", str(course_with_a_submission), "--jobs", "1",
                               "--shard", "0/1", "--scores", str(scores)]) == 0
    assert len(list(scores.glob("*.json"))) == 1
    assert json.loads(next(scores.glob("*.json")).read_text())["cells"]
