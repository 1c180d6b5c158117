"""What a student reads: in JupyterLab (report first, one-line "not done", the summary cell),
from nbgrader validate (a locked cell edited), and in the feedback (hidden tests removed, paths
replaced, long lines wrapped, warnings never scored as errors)."""

import json
import re
import shutil
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_output

from barrier_course.grading.autograde import AnswerScore, CellScore
from barrier_course.grading.checks import ExerciseNotDone, KernelCheckFailed
from barrier_course.nbgrader.isolation import FeedbackCleanup, IsolatedExecute
from course_testing import ASSIGNMENT, ROOT, execute, run_tool, strip_ansi

RELEASE = ROOT / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
STUB = re.compile(r'^(?P<indent>[ \t]*)__simcore_todo\(.*\);[ \t]*$', re.M)


def _grade_cell(grade_id="t1", points=3, source="check_kernel(source, 'k')"):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "locked": True,
                                 "points": points, "solution": False, "schema_version": 3}
    return cell


def test_exceptions_render_as_the_message_only():
    failed = KernelCheckFailed("========= simcore: Data race\n=========     at line 12: x\n\nLaunch: ...")
    lines = failed._render_traceback_()
    assert "Data race" in strip_ansi(lines[0]) and lines[1].startswith("=========     at line 12")
    assert isinstance(failed, AssertionError)
    not_done = ExerciseNotDone("Exercise not done yet: replace the line")
    assert len(not_done._render_traceback_()) == 1 and isinstance(not_done, NotImplementedError)


def test_write_back_scores_warnings_and_partial_credit_right():
    from nbgrader.utils import determine_grade

    cells = [_grade_cell("warns"), _grade_cell("fails"), _grade_cell("half", points=4)]
    nb = nbformat.v4.new_notebook(cells=cells)
    score = AnswerScore(cells=[
        CellScore("warns", 3, 3, "passed", "Note (SimWarning, costs no points): legal\nOK\n"),
        CellScore("fails", 0, 3, "failed", "", "========= simcore: Data race\nLaunch", "AssertionError"),
        CellScore("half", 2, 4, "passed", ""),
    ])
    IsolatedExecute()._write_back(nb, score)
    assert [o.name for o in cells[0].outputs] == ["stdout"]
    assert [determine_grade(c)[0] for c in cells] == [3, 0, 2]
    err = cells[1].outputs[-1]
    assert err.output_type == "error" and "Data race" in strip_ansi(err.traceback[0])


def test_feedback_cleanup_hides_tests_paths_and_wraps():
    from nbgrader.coursedir import CourseDirectory

    root = CourseDirectory().root
    cell = _grade_cell(source="visible()\n### BEGIN HIDDEN TESTS\nsecret_test()\n### END HIDDEN TESTS\n")
    long = "What happened: " + "word " * 60
    cell.outputs = [new_output("stream", name="stdout", text=f"{long}\n{root}/solutions/x.ipynb\n" + "y" * 50_000),
                    new_output("error", ename="AssertionError", evalue=long,
                               traceback=[long, f"{sys.prefix}/lib/grading.py"])]
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb, _ = FeedbackCleanup().preprocess(nb, {})
    out = nb.cells[0]
    assert "secret_test" not in out.source and "BEGIN HIDDEN" not in out.source
    assert "visible()" in out.source and "hidden tests ran here" in out.source
    text = out.outputs[0].text
    assert root not in text and "cut:" in text and len(text) < 25_000
    assert max(len(line) for line in text.split("\n")) <= 100
    assert all(len(line) <= 100 for line in out.outputs[1].traceback)
    assert sys.prefix not in "\n".join(out.outputs[1].traceback)


def _with_fill(fill):
    nb = json.loads(RELEASE.read_text())
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        m = STUB.search(src)
        if m and fill is not None:
            code = "\n".join(m["indent"] + line for line in fill.splitlines())
            cell["source"] = src[: m.start()] + code + src[m.end():]
    return nb


def _run_as_student(tmp_path, fill):
    path = tmp_path / f"{ASSIGNMENT}.ipynb"
    path.write_text(json.dumps(_with_fill(fill)))
    return execute(path, allow_errors=True)


def _grade_errors(nb):
    return {c.metadata["nbgrader"]["grade_id"]: o for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") for o in c.outputs
            if o.output_type == "error"}


def _summary_text(nb):
    last = nb.cells[-1]
    assert "summary()" in last.source
    return "".join(o.get("text", "") for o in last.outputs)


@pytest.mark.slow
def test_student_run_blank_says_not_done_in_one_line(tmp_path):
    nb = _run_as_student(tmp_path, None)
    errors = _grade_errors(nb)
    assert len(errors) == 3
    for out in errors.values():
        assert len(out.traceback) == 1 and "not done yet" in strip_ansi(out.traceback[0])
    summary = _summary_text(nb)
    assert "Total: 0 / 10" in summary and "failed: Exercise not done yet" in summary


@pytest.mark.slow
def test_student_run_wrong_shows_report_first_and_summary(tmp_path):
    nb = _run_as_student(tmp_path, "tile[t] = (i < n) ? in[i] : 0.0f;")  # no barrier
    errors = _grade_errors(nb)
    assert errors
    for out in errors.values():
        tb = strip_ansi("\n".join(out.traceback))
        assert tb.startswith("Test failed: ========= simcore:"), tb[:300]
        assert "at line" in tb and "How to fix it" in tb
        assert 'File "' not in tb and "grading.py" not in tb, tb
    summary = _summary_text(nb)
    assert "Total: 0 / 10" in summary and "0 / 3  failed: ========= simcore: Data race" in summary


@pytest.mark.slow
def test_student_run_right_with_a_warning_gets_all_points_and_no_stderr(tmp_path):
    fill = ("tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();\n"
            "if (t >= blockDim.x / 2) return;")
    nb = _run_as_student(tmp_path, fill)
    assert not _grade_errors(nb)
    grade_outputs = [o for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
                     for o in c.outputs]
    assert not [o for o in grade_outputs if o.get("name") == "stderr"]
    assert any("costs no points" in o.get("text", "") for o in grade_outputs)
    assert "Total: 10 / 10" in _summary_text(nb)


@pytest.mark.slow
def test_validate_tells_a_student_who_edits_a_locked_cell(tmp_path):
    nb = _with_fill("tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();")
    setup = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "setup")
    setup["source"] = "".join(setup["source"]).replace("np.nan", "0.0")
    path = tmp_path / f"{ASSIGNMENT}.ipynb"
    path.write_text(json.dumps(nb))
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    out = run_tool(["nbgrader", "validate", path.name], cwd=tmp_path, check=False).stdout
    assert "CHANGED" in out and "np.full(grid, 0.0" in out, out[-3000:]


@pytest.mark.slow
def test_student_run_all_goes_past_failing_tests_to_the_summary(tmp_path):
    """Run All in the student's kernel: a failing test shows its report as the cell's error,
    but the execution goes on (nbclient without allow_errors raises at the first cell whose
    execution failed), so every test runs and the summary comes last."""
    path = tmp_path / f"{ASSIGNMENT}.ipynb"
    path.write_text(json.dumps(_with_fill("tile[t] = (i < n) ? in[i] : 0.0f;")))  # no barrier
    nb = execute(path, allow_errors=False)
    errors = _grade_errors(nb)
    assert len(errors) == 3, sorted(errors)            # every test ran and reported
    summary = _summary_text(nb)
    assert "Total: 0 / 10" in summary and summary.count("failed: ") == 3


def test_a_grader_kernel_still_fails_the_cell(monkeypatch):
    """Under nbgrader (validate, autograde) and the isolated grader a failing test keeps its
    error: only the student's own session goes on."""
    from types import SimpleNamespace

    from barrier_course.grading import checks as grading

    def run(cell, error):
        result = SimpleNamespace(info=SimpleNamespace(raw_cell=cell), error_in_exec=error,
                                 error_before_exec=None)
        grading._record_cell(result)
        return result.error_in_exec

    failed = KernelCheckFailed("========= simcore: Data race")
    for var in ("BARRIER_COURSE_GRADING", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(var, raising=False)
    assert run("check_kernel(source, 'k')  # a", failed) is None
    other = NameError("name 'source' is not defined")
    assert run("check_kernel(source, 'k')  # b", other) is other     # not a test's verdict
    for var in ("BARRIER_COURSE_GRADING", "NBGRADER_EXECUTION"):
        monkeypatch.setenv(var, "validate")
        assert run("check_kernel(source, 'k')  # c", failed) is failed
        monkeypatch.delenv(var)


def test_summary_counts_only_results_of_the_current_answer(tmp_path, monkeypatch, capsys):
    """Results are keyed by the answer they were computed for: after the answer cell is run
    with another kernel, a test not run again says so and earns nothing."""
    from types import SimpleNamespace

    from barrier_course.grading import checks as grading

    nb = nbformat.v4.new_notebook(cells=[_grade_cell("t1", 3, "# first property\ncheck_kernel(source, 'k')"),
                                         _grade_cell("t2", 7, "# second property\ncheck_kernel(source, 'k', x=2)")])
    answer = new_code_cell('source = r"""right"""')
    answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "kernel_source",
                                   "locked": False, "schema_version": 3}
    nb.cells.insert(0, answer)
    path = tmp_path / "ex.ipynb"
    nbformat.write(nb, str(path))
    ns = {}
    monkeypatch.setattr(grading, "_user_ns", lambda: ns)
    monkeypatch.setattr(grading, "_CELL_RESULTS", {})
    monkeypatch.setattr(grading, "_ANSWER_NAMES", set())
    for var in ("BARRIER_COURSE_GRADING", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(var, raising=False)

    def run(cell, error=None):
        if error is None and cell.startswith("source = "):
            ns["source"] = cell.split('"""')[1]
        grading._record_cell(SimpleNamespace(info=SimpleNamespace(raw_cell=cell),
                                             error_in_exec=error, error_before_exec=None))

    def summary():
        grading.summary(str(path))
        return capsys.readouterr().out

    run('source = r"""right"""')
    run(nb.cells[1].source)
    run(nb.cells[2].source)
    assert "Total: 10 / 10" in summary()
    run('source = r"""wrong"""')                       # edited and run, tests not run again
    text = summary()
    assert "Total: 0 / 10" in text and text.count(grading.NOT_THIS_VERSION) == 2, text
    run(nb.cells[1].source, KernelCheckFailed("========= simcore: Data race"))
    text = summary()
    assert "Total: 0 / 10" in text and "0 / 3  failed: ========= simcore: Data race" in text
    assert text.count(grading.NOT_THIS_VERSION) == 1
    run('source = r"""right"""')                       # back to the first answer: its results count
    assert "Total: 7 / 10" in summary()


def test_summary_never_cuts_a_label(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace

    from barrier_course.grading import checks as grading

    label = "A property whose description is much longer than sixty characters, told in full"
    nb = nbformat.v4.new_notebook(cells=[_grade_cell("t1", 3, f"# {label}\ncheck_kernel(source, 'k')")])
    nbformat.write(nb, str(tmp_path / "ex.ipynb"))
    monkeypatch.setattr(grading, "_CELL_RESULTS", {})
    monkeypatch.setattr(grading, "_user_ns", lambda: {})
    grading._record_cell(SimpleNamespace(info=SimpleNamespace(raw_cell=nb.cells[0].source),
                                         error_in_exec=None, error_before_exec=None))
    grading.summary(str(tmp_path / "ex.ipynb"))
    out = capsys.readouterr().out
    assert label in out and "3 / 3  passed" in out
