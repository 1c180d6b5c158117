"""The H200 timings of the exercises' right answers (course/data/h200-exercise-answers.json)
stay complete and current: every right answer the tests accept, at every launch its exercise's
grade cells make, has a GPU measurement with the right outputs, and the table's model column
is what simcore's timing model computes now (tools/measure_exercise_answers.py re-makes it)."""
import json
import sys

import pytest

from course_testing import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import measure_exercise_answers as timings  # noqa: E402

TABLE = ROOT / "course" / "data" / "h200-exercise-answers.json"
HOW = "re-run tools/measure_exercise_answers.py (plan, gpu on the H200, model, markdown)"


@pytest.fixture(scope="module")
def table():
    return json.loads(TABLE.read_text())


@pytest.fixture(scope="module")
def answers():
    return timings.right_answers()


def _rows_of(table, exercise, answer):
    return [r for r in table["rows"] if r["exercise"] == exercise and r["answer"] == answer]


def test_every_right_answer_of_every_exercise_is_timed_on_the_h200(table, answers):
    assert set(answers) == set(timings.exercise_notebooks()), "an exercise without right answers"
    missing = []
    for exercise, named in answers.items():
        for answer, source in named.items():
            rows = _rows_of(table, exercise, answer)
            if not rows or any(r["source_sha256"] != timings.source_digest(source) for r in rows):
                missing.append(f"{exercise}/{answer}")
    assert not missing, f"right answers with no H200 timing of their current source: {missing}; {HOW}"


def test_every_graded_launch_of_a_right_answer_has_a_correct_gpu_measurement(table, answers):
    gaps = []
    for exercise, named in answers.items():
        notebook = timings.exercise_notebooks()[exercise]
        for answer, source in named.items():
            measured = {r["launch"]: r for r in _rows_of(table, exercise, answer)}
            for launch in timings.graded_launches(notebook, source):
                row = measured.get(timings.launch_key(launch))
                if row is None or not row.get("h200_median_ms") or row.get("gpu_correct") is not True:
                    gaps.append(f"{exercise}/{answer} {timings.launch_key(launch)}")
    assert not gaps, f"{len(gaps)} graded launches without a correct H200 measurement, e.g. {gaps[:5]}; {HOW}"


@pytest.mark.parametrize("exercise", sorted(timings.exercise_notebooks()))
def test_the_solutions_model_column_is_what_the_model_computes_now(table, exercise):
    notebook = timings.exercise_notebooks()[exercise]
    source = timings.solution_source(notebook)
    committed = {r["launch"]: r["model_ms"] for r in _rows_of(table, exercise, "solution")}
    changed = []
    for launch in timings.graded_launches(notebook, source):
        key = timings.launch_key(launch)
        now = round(timings.model_estimate(source, launch).time_ms, 6)
        # 0.1%: the table keeps 6 decimals of a millisecond; a smaller move is no change the
        # table's error column could show
        if committed.get(key) is None or abs(now - committed[key]) > 1e-3 * committed[key] + 1e-6:
            changed.append(f"{key}: table {committed.get(key)} ms, model now {now} ms")
    assert not changed, f"the timing model changed: {changed[:5]}; re-run the model step of {HOW}"
