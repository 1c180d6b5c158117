"""Every committed notebook runs from top to bottom in a fresh kernel, and carries no outputs.

* course/**.ipynb: no error allowed.
* exercises/**.ipynb (the student release): runs to the end; the only errors allowed are the
  autograded test cells failing with the grader's "Exercise not done yet" NotImplementedError.
* solutions/**.ipynb (the instructor's version): no error allowed, hidden tests included.
"""

import json
import re

import pytest

from course_testing import (NOT_DONE, ROOT, error_outputs, execute, is_grade_cell, notebooks,
                            strip_ansi)

COURSE = notebooks("course")
EXERCISES = notebooks("exercises")
SOLUTIONS = notebooks("solutions")
ALL = COURSE + EXERCISES + SOLUTIONS


def _ids(paths):
    return [str(p.relative_to(ROOT)) for p in paths]


def _describe(errors):
    return "\n\n".join(
        f"cell {k} ({cell.get('metadata', {}).get('nbgrader', {}).get('grade_id', 'no grade id')}):"
        f" {out.get('ename')}: {out.get('evalue')}\n" + strip_ansi("\n".join(out.get("traceback", [])))[-3000:]
        for k, cell, out in errors)


WIDGET = "application/vnd.jupyter.widget-view+json"


def _watch_cell_outputs(nb, path):
    """The outputs of the exercise's "watch it" cell: the step-through player on `source`,
    right after the try-it cell (issue 12: every exercise offers the player). Both are plain
    cells without nbgrader metadata, so they are found by what they call."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    watch = [k for k, c in enumerate(code) if "player.show_source(source," in c.source]
    assert watch, f"{path.relative_to(ROOT)}: no 'watch it' cell (the player on your kernel)"
    k = watch[0]
    assert k > 0 and re.search(r"\btry_\w*\(source,", code[k - 1].source), (
        f"{path.relative_to(ROOT)}: the 'watch it' cell must follow the 'try it' cell")
    return code[k].get("outputs", [])


def test_there_are_notebooks():
    assert EXERCISES, "no released exercise under exercises/"
    assert SOLUTIONS, "no exercise source under solutions/"


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [k for k, c in enumerate(nb["cells"])
             if c.get("cell_type") == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, (f"{path.relative_to(ROOT)}: cells {dirty} carry outputs or execution "
                       "counts; clear them before committing (Edit > Clear Outputs of All Cells)")


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_course_notebook_runs(path):
    nb = execute(path, allow_errors=True)
    errors = error_outputs(nb)
    assert not errors, f"{path.relative_to(ROOT)} raised:\n{_describe(errors)}"


@pytest.mark.parametrize("path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_solution_passes_its_own_tests(path):
    nb = execute(path, allow_errors=True)
    errors = error_outputs(nb)
    assert not errors, f"{path.relative_to(ROOT)} raised:\n{_describe(errors)}"
    watched = _watch_cell_outputs(nb, path)
    assert any(WIDGET in out.get("data", {}) for out in watched), (
        f"{path.relative_to(ROOT)}: the 'watch_it' cell did not open the player on the solution: {watched}")


@pytest.mark.parametrize("path", EXERCISES, ids=_ids(EXERCISES))
def test_released_exercise_runs_to_the_end(path):
    nb = execute(path, allow_errors=True)
    errors = error_outputs(nb)
    unexpected = [(k, c, o) for k, c, o in errors
                  if not (is_grade_cell(c) and o.get("ename") in ("NotImplementedError", "ExerciseNotDone")
                          and NOT_DONE in o.get("evalue", ""))]
    assert not unexpected, (f"{path.relative_to(ROOT)}: errors other than the grading cells' "
                            f"'{NOT_DONE}':\n{_describe(unexpected)}")
    grade_cells = [k for k, c in enumerate(nb.cells) if is_grade_cell(c)]
    failed = sorted({k for k, _, _ in errors})
    assert failed == grade_cells, (
        f"every autograded cell must fail on the blank release with '{NOT_DONE}'; "
        f"grade cells {grade_cells}, failed {failed}")
    # the released notebook executed every cell (nothing stopped it half way)
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    # the player on the blank answer says so in one line instead of raising
    from barrier_course.lessons.player import NOTHING_TO_SHOW
    text = "".join(out.get("text", "") for out in _watch_cell_outputs(nb, path))
    assert text.startswith(NOTHING_TO_SHOW) and text.count("\n") <= 1, text
