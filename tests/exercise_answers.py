"""Grade hand-written answers of an exercise the way the autograder does (not a test module).

An answer is the code a student writes in place of the solution region (the lines between
``// ### BEGIN SOLUTION`` and ``// ### END SOLUTION`` of the instructor notebook's answer
cell). :func:`kernel_with` puts it into the kernel; :func:`grade` scores the kernel against
the instructor notebook's trusted cells (the locked setup cells and every grade cell, hidden
tests included) and returns ``{grade_id: (points, failure message or None)}``.

Scoring goes through the isolated scorer ``barrier_course.grading.autograde.score_answer``, the one
behind ``nbgrader autograde``. Scores are deterministic (the same source and notebook give the
same score), so :func:`grade` keeps each one for the session: a test that looks again at an
answer another test graded (partial credit of a wrong answer, say) costs nothing. A test module
announces its answers with :func:`grade_together`; the first :func:`grade` of that exercise then
grades them all in one scorer run (``score_answers``: the same scores as one by one, with the
interpreter, the imports and the setup cells paid once).

:func:`standard_answer_tests` builds the tests every exercise runs on its answers (the solution
gets full marks, each wrong answer loses points with its own mistake shown first, each right
answer gets them all, every answer compiles with nvcc); a test module keeps only its answers
and the tests unique to its exercise.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, NamedTuple

import pytest

from barrier_course.grading.pool import score_answers

ROOT = Path(__file__).resolve().parent.parent
REGION = re.compile(r"^(?P<indent>[ \t]*)// ### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*// ### END SOLUTION[^\n]*\n",
                    re.S | re.M)


def solution_notebook(assignment: str) -> Path:
    return ROOT / "solutions" / assignment / f"{assignment}.ipynb"


#: the exercise whose answers are tests/hostile_submissions.py's honest ones (its tests are the
#: grading and hostile-submission tests, not a test_exercise_* module)
HOSTILE_SUBMISSIONS_ASSIGNMENT = "ex01_tail_handling"


def answer_modules() -> dict:
    """{assignment: name of the module holding its RIGHT and WRONG answers}, read from the test
    modules (each tests/course/test_exercise_*.py names its exercise by NOTEBOOK), so a new
    exercise's answers are found without a list to extend. Needs tests/course on sys.path."""
    import importlib  # noqa: PLC0415 - imports the test modules only when asked

    found = {}
    for path in sorted((ROOT / "tests" / "course").glob("test_exercise_*.py")):
        module = importlib.import_module(path.stem)
        notebook = getattr(module, "NOTEBOOK", None)
        if notebook is not None and hasattr(module, "RIGHT") and hasattr(module, "WRONG"):
            found[Path(notebook).parent.name] = path.stem
    found.setdefault(HOSTILE_SUBMISSIONS_ASSIGNMENT, "hostile_submissions")
    return dict(sorted(found.items()))


def _cells(path: Path) -> list:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(c["cell_type"], c.get("metadata", {}).get("nbgrader", {}),
             "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
            for c in nb["cells"]]


def answer_template(path: Path) -> str:
    """The instructor's kernel source (the answer cell's string, solution region included)."""
    for kind, meta, src in _cells(path):
        if kind == "code" and meta.get("solution"):
            return ast.literal_eval(ast.parse(src).body[0].value)
    raise AssertionError(f"{path}: no answer cell")


def kernel_with(path: Path, answer: str) -> str:
    """The kernel with the solution region replaced by `answer` (indented like the region)."""
    template = answer_template(path)
    m = REGION.search(template)
    assert m, f"{path}: the answer cell has no solution region"
    body = "".join((m["indent"] + line if line.strip() else line) + "\n"
                   for line in answer.strip("\n").splitlines())
    return template[: m.start()] + body + template[m.end():]


_SCORES: dict = {}     # (notebook, mtime, kernel source) -> AnswerScore
_PENDING: dict = {}    # (notebook, mtime) -> kernel sources announced by grade_together


def _notebook_key(path: Path) -> tuple:
    path = Path(path)
    return (str(path.resolve()), path.stat().st_mtime_ns)


def grade_together(path: Path, wrong: dict, right: dict) -> None:
    """Announce the answers a test module will grade: the solution, every wrong answer
    (``{name: (answer, what must fail)}``) and every right answer (``{name: answer}``). Nothing
    runs now; the first :func:`grade` of this exercise grades them all in one scorer run."""
    sources = [answer_template(path)]
    sources += [kernel_with(path, answer) for answer, _ in wrong.values()]
    sources += [kernel_with(path, answer) for answer in right.values()]
    _PENDING.setdefault(_notebook_key(path), []).extend(sources)


def grade(path: Path, kernel_source: str) -> dict:
    """{grade_id: (points, failure message or None)} for one kernel source, graded by the
    isolated scorer (the instructor notebook's trusted cells in a fresh interpreter)."""
    notebook = _notebook_key(path)
    key = (*notebook, kernel_source)
    if key not in _SCORES:
        batch = [s for s in dict.fromkeys(_PENDING.pop(notebook, [])) if (*notebook, s) not in _SCORES]
        if kernel_source not in batch:
            batch.append(kernel_source)
        for source, result in zip(batch, score_answers(path, batch)):
            _SCORES[(*notebook, source)] = result
    result = _SCORES[key]
    assert result.fault is None, f"the grading run itself failed: {result.fault}"
    return {c.grade_id: (float(c.points), c.error) for c in result.cells}


def cell_outputs(path: Path, kernel_source: str) -> dict:
    """{grade_id: what the cell printed} for one kernel source (graded as by :func:`grade`):
    the notes the student reads above a failure message."""
    grade(path, kernel_source)
    return {c.grade_id: c.output for c in _SCORES[(*_notebook_key(path), kernel_source)].cells}


def assert_own_mistake_first(message: str, kernel_name: str) -> None:
    """A failing cell shows the student's mistake first: the simulator's report, or the kernel's
    wrong numbers with the launch -- not the grader's traceback, not "not done yet"."""
    assert message, "a failing grade cell without a message"
    head = message.lstrip()
    assert head.startswith(("========= simcore:", f"Kernel '{kernel_name}'")), head[:500]
    assert "Traceback" not in message, message[:500]


def max_points(path: Path) -> dict:
    return {meta["grade_id"]: float(meta["points"]) for kind, meta, _ in _cells(path)
            if kind == "code" and meta.get("grade")}


def find_nvcc() -> str | None:
    for cand in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def nvcc_errors(sources: dict) -> dict:
    """{name: compiler output} for every source that ``nvcc -ptx -arch=sm_90`` refuses
    (the compilers run side by side, one per CPU core)."""
    nvcc = find_nvcc()
    assert nvcc, "nvcc not found"
    with tempfile.TemporaryDirectory() as tmp:
        def compile_one(item):
            name, code = item
            cu = Path(tmp) / f"{name}.cu"
            cu.write_text(code)
            p = subprocess.run([nvcc, "-ptx", "-arch=sm_90", str(cu), "-o", str(cu.with_suffix(".ptx"))],
                               capture_output=True, text=True, timeout=300)
            return name, (p.stdout + p.stderr).strip() if p.returncode else None

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(compile_one, sources.items()))
    return {name: output for name, output in results if output is not None}


class StandardAnswerTests(NamedTuple):
    """The tests every exercise's answer module runs, to be assigned at module level under
    these names (pytest collects them there, with the same parametrize ids)."""
    test_solution_full_marks: Callable
    test_wrong_answer_loses_points: Callable
    test_right_answer_full_marks: Callable
    test_every_answer_compiles_with_nvcc: Callable


def standard_answer_tests(path: Path, wrong: dict, right: dict, kernel: str) -> StandardAnswerTests:
    """The exercise's four standard tests, built from its answers. `wrong` maps a name to
    ``(answer, the grade cell that must fail)``, or to ``(answer, {cells that must fail})``
    where one mistake costs more than one cell; `right` maps a name to an answer. `kernel` is
    the kernel's name, the one a failing cell's message names first. All the answers are
    announced with :func:`grade_together`, so the module's first grade scores them in one run."""
    full = max_points(path)
    grade_together(path, wrong, right)

    def test_solution_full_marks():
        scores = grade(path, answer_template(path))
        assert {k: p for k, (p, _) in scores.items()} == full, scores

    @pytest.mark.parametrize("name", sorted(wrong))
    def test_wrong_answer_loses_points(name):
        answer, must_fail = wrong[name]
        must_fail = {must_fail} if isinstance(must_fail, str) else set(must_fail)
        scores = grade(path, kernel_with(path, answer))
        assert sum(p for p, _ in scores.values()) < sum(full.values()), (name, scores)
        failed = {k for k, (p, _) in scores.items() if p < full[k]}
        assert must_fail <= failed, (name, must_fail, scores)
        for cell in sorted(must_fail):
            points, message = scores[cell]
            assert points == 0 and message, (name, cell, scores)
            # the student reads their own mistake first: the simulator's report or the wrong
            # numbers, not the grader's traceback
            assert_own_mistake_first(message, kernel)

    @pytest.mark.parametrize("name", sorted(right))
    def test_right_answer_full_marks(name):
        scores = grade(path, kernel_with(path, right[name]))
        failed = {k: m for k, (p, m) in scores.items() if p != full[k]}
        assert not failed, (name, failed)

    @pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found: the PTX compile check needs the CUDA toolkit")
    def test_every_answer_compiles_with_nvcc():
        sources = {name: kernel_with(path, answer) for name, (answer, _) in wrong.items()}
        sources.update({name: kernel_with(path, answer) for name, answer in right.items()})
        assert nvcc_errors(sources) == {}

    return StandardAnswerTests(test_solution_full_marks, test_wrong_answer_loses_points,
                               test_right_answer_full_marks, test_every_answer_compiles_with_nvcc)
