"""The isolated scorer (barrier_course.grading.autograde): reading answers and grading them in a
fresh, limited interpreter from the instructor's trusted cells only."""

import copy
import json

import pytest

from barrier_course.grading.autograde import (AnswerError, Limits, NOT_DONE, extract_answer,
                                      extract_answers, score_answer, score_submission,
                                      trusted_program)
from barrier_course.grading.pool import score_answers
from course_testing import ASSIGNMENT, ROOT

SOLUTION = ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
RELEASE = ROOT / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


@pytest.fixture(scope="module")
def instructor():
    return json.loads(SOLUTION.read_text())


@pytest.fixture(scope="module")
def right(instructor):
    return extract_answer(instructor, instructor)


def _answer_cell(nb):
    return next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))


def _with_answer_cell(nb, text):
    nb = copy.deepcopy(nb)
    _answer_cell(nb)["source"] = text
    return nb


def test_trusted_program_has_setup_answer_and_every_grade_cell(instructor):
    program = trusted_program(instructor)
    kinds = [s.kind for s in program.steps]
    assert kinds.count("answer") == 1 and program.answer_cells == {"kernel_source": "source"}
    assert [g.grade_id for g in program.grade_cells] == ["test_one_block_size", "test_block_sizes",
                                                         "test_edge_cases"]
    assert sum(g.points for g in program.grade_cells) == 10
    # the hidden tests are part of what runs; the try-it cell is not
    assert any("BEGIN HIDDEN TESTS" in g.source for g in program.grade_cells)
    assert not any(s.kind == "setup" and "try_kernel(source" in s.source for s in program.steps)


def test_solution_full_marks_wrong_loses_blank_not_done(instructor, right):
    good = score_answer(SOLUTION, right)
    assert (good.total, good.possible) == (10, 10), good.to_dict()
    assert all(c.status == "passed" and "OK:" in c.output for c in good.cells)

    no_barrier = right.replace("__syncthreads();                    // unconditional", "//")
    assert no_barrier != right
    wrong = score_answer(SOLUTION, no_barrier)
    assert wrong.total < 10
    failed = [c for c in wrong.cells if c.status == "failed"]
    assert failed and all(c.error_name == "AssertionError" and "block_sum" in c.error for c in failed)

    blank = score_submission(json.loads(RELEASE.read_text()), instructor)
    assert blank.total == 0
    assert all(c.status == "not done" and NOT_DONE in c.error for c in blank.cells)


@pytest.mark.parametrize("cell_text, says", [
    ('source = r"""x"""\nimport os', "Import"),
    ('import barrier_course.grading.checks as g\nsource = "x"', "Import"),
    ('source = f"{1}"', "not a string literal"),
    ('source = "a" + "b"', "not a string literal"),
    ("source = 42", "not a string"),
    ("source, other = 'a', 'b'", "one plain name"),
    ('kernel = "x"', "'source', not to 'kernel'"),
    ('source = """unterminated', "cannot read"),
])
def test_answer_cell_must_be_one_string_assignment(instructor, cell_text, says):
    with pytest.raises(AnswerError) as err:
        extract_answers(_with_answer_cell(instructor, cell_text), instructor)
    assert "kernel_source" in str(err.value) and says in str(err.value), str(err.value)
    graded = score_submission(_with_answer_cell(instructor, cell_text), instructor)
    assert graded.total == 0 and all(c.status == "refused" for c in graded.cells)


def test_comments_and_implicit_concatenation_are_fine(instructor):
    text = '# YOUR ANSWER: edit this cell\nsource = ("abc"  # part one\n          "def")\n'
    assert extract_answer(_with_answer_cell(instructor, text), instructor) == "abcdef"


def test_missing_answer_cell_is_named(instructor):
    nb = copy.deepcopy(instructor)
    _answer_cell(nb)["metadata"]["nbgrader"]["grade_id"] = "renamed"
    with pytest.raises(AnswerError, match="kernel_source.*missing"):
        extract_answers(nb, instructor)


def test_other_student_cells_never_run(instructor, right, tmp_path):
    """A cell that rebinds check_kernel and writes a file changes nothing."""
    marker = tmp_path / "ran.txt"
    nb = _with_answer_cell(instructor, 'source = "__global__ void block_sum() {}"')
    evil = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": "import barrier_course.grading.checks as g\ng.check_kernel = lambda *a, **k: None\n"
                      f"open({str(marker)!r}, 'w').write('x')\n"}
    nb["cells"].insert(1, evil)
    graded = score_submission(nb, instructor)
    assert graded.total == 0 and not marker.exists()


def test_an_answer_longer_than_the_source_limit_is_refused_before_running(right):
    big = score_answer(SOLUTION, right + "//" + "x" * 70_000)
    assert big.total == 0 and "bytes long" in big.cells[0].error


def _with_line_before_end(right, line):
    return right.replace("// ### END SOLUTION", line + "\n// ### END SOLUTION")


def test_a_macro_bomb_is_refused_with_a_message_naming_the_macro_and_line(right):
    doubling = "\n".join(["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, 25)])
    bomb = doubling + "\n" + _with_line_before_end(right, "(void)A24;")
    bomb_line = [line.strip() for line in bomb.split("\n")].index("(void)A24;") + 1
    graded = score_answer(SOLUTION, bomb)
    assert graded.total == 0 and {c.status for c in graded.cells} == {"refused"}
    message = graded.cells[0].error
    assert "macro expansion of A24" in message and f"line {bomb_line}" in message


def test_macros_past_a_smaller_grader_limit_are_refused_and_below_it_graded(right):
    macros = "\n".join(["#define A0 0"] + [f"#define A{i} (A{i - 1} + A{i - 1})" for i in range(1, 11)])
    answer = macros + "\n" + _with_line_before_end(right, "(void)A10;")
    small = score_answer(SOLUTION, answer, limits=Limits(macro_expansion_chars=10_000))
    assert small.total == 0 and "macro expansion of A10" in small.cells[0].error
    assert "10,000 characters" in small.cells[0].error
    graded = score_answer(SOLUTION, answer)      # 20 kB of expansion: far below the default
    assert graded.total == graded.possible


def _toy_notebook(grade_sources):
    """An instructor notebook with a trivial answer and the given grade cells (trusted code)."""
    def cell(src, **meta):
        return {"cell_type": "code", "metadata": {"nbgrader": meta}, "outputs": [],
                "execution_count": None, "source": src}
    cells = [cell("import time", locked=True, grade_id="setup"),
             cell('source = "x"', solution=True, grade_id="answer")]
    cells += [cell(src, grade=True, locked=True, points=1, grade_id=f"t{k}")
              for k, src in enumerate(grade_sources)]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_wall_clock_limit_keeps_finished_cells():
    nb = _toy_notebook(["assert source == 'x'", "time.sleep(60)", "print('never')"])
    graded = score_answer(nb, "x", limits=Limits(wall_s=3))
    assert graded.timed_out and [c.points for c in graded.cells] == [1, 0, 0]
    assert [c.status for c in graded.cells] == ["passed", "timeout", "timeout"]
    assert "wall-clock limit" in graded.cells[1].error


def test_cpu_and_memory_limits():
    nb = _toy_notebook(["assert source == 'x'", "while True: pass"])
    graded = score_answer(nb, "x", limits=Limits(cpu_s=2, wall_s=30))
    assert [c.points for c in graded.cells] == [1, 0]
    assert graded.cells[1].status == "timeout" and "CPU-time limit" in graded.fault
    nb = _toy_notebook(["x = bytearray(2 << 30)"])
    graded = score_answer(nb, "x", limits=Limits(memory_mb=512))
    assert graded.total == 0 and graded.cells[0].error_name == "MemoryError"


def test_output_is_cut_and_warnings_cost_nothing():
    nb = _toy_notebook(["print('y' * 100_000)",
                        "import warnings, sys\nwarnings.warn('legal but odd')\n"
                        "print('to stderr', file=sys.stderr)"])
    graded = score_answer(nb, "x", limits=Limits(output_bytes=1000))
    assert [c.points for c in graded.cells] == [1, 1]
    assert len(graded.cells[0].output) < 1200 and "output cut" in graded.cells[0].output
    assert "legal but odd" in graded.cells[1].output


def test_child_runs_in_a_bare_folder_with_read_only_packages():
    nb = _toy_notebook([
        "import os, sys\nassert sorted(os.listdir('.')) == ['interpreter.log', 'job.json', "
        "'packages', 'result.json'], os.listdir('.')\nassert sys.flags.isolated",
        "import barrier_course.grading.checks as g, simcore\n"
        "assert g.__file__.startswith(os.path.realpath('packages')), g.__file__\n"
        "assert simcore.__file__.startswith(os.path.realpath('packages')), simcore.__file__\n"
        "try:\n    open(g.__file__, 'a')\nexcept PermissionError:\n    pass\n"
        "else:\n    assert os.geteuid() == 0, 'the package copy is writable'\n",
        "import tasks",  # the repository itself is not on the path
    ])
    graded = score_answer(nb, "x")
    assert [c.points for c in graded.cells] == [1, 1, 0], graded.to_dict()
    assert graded.cells[2].error_name == "ModuleNotFoundError"


def test_many_short_lines_are_cut_too():
    nb = _toy_notebook(["for k in range(5000):\n    print(k)"])
    graded = score_answer(nb, "x", limits=Limits(output_lines=100))
    out = graded.cells[0].output
    assert graded.total == 1 and out.count("\n") < 110 and "output cut" in out


def test_memory_limit_where_a_gpu_may_run(monkeypatch):
    """With CuPy present the limit is on data, not address space (CUDA reserves a lot)."""
    import barrier_course.grading.autograde as autograde

    monkeypatch.setattr(autograde, "gpu_possible", lambda: True)
    nb = _toy_notebook(["x = bytearray(2 << 30)", "import numpy as np\ny = np.ones(10**6)"])
    graded = score_answer(nb, "x", limits=Limits(memory_mb=512))
    assert [c.points for c in graded.cells] == [0, 1]
    assert graded.cells[0].error_name == "MemoryError"


# ------------------------------------------------------------------ several answers, one warm interpreter
def _cells_seen(score):
    return [(c.grade_id, c.points, c.status, c.error) for c in score.cells]


def test_batch_gives_the_scores_of_one_by_one(right):
    no_barrier = right.replace("__syncthreads();                    // unconditional", "//")
    blank = 'extern "C" __global__ void block_sum() { __simcore_todo("x"); }'
    answers = [right, no_barrier, blank, "not C at all"]
    batch = score_answers(SOLUTION, answers)
    alone = [score_answer(SOLUTION, a) for a in answers]
    assert [_cells_seen(b) for b in batch] == [_cells_seen(a) for a in alone]
    assert [b.total for b in batch] == [10, alone[1].total, 0, 0] and alone[1].total < 10
    assert all(b.fault is None for b in batch)


def test_batch_answers_do_not_see_each_other():
    nb = _toy_notebook(["assert 'seen' not in globals()\nseen = source"])
    assert [s.total for s in score_answers(nb, ["x", "y", "x"])] == [1, 1, 1]


def test_a_hung_answer_in_a_batch_costs_only_its_own_points():
    nb = _toy_notebook(["assert source != 'wrong'", "if source == 'hang':\n    time.sleep(60)"])
    scores = score_answers(nb, ["x", "hang", "wrong", "x"], limits=Limits(wall_s=2))
    assert [[c.points for c in s.cells] for s in scores] == [[1, 1], [1, 0], [0, 1], [1, 1]]
    assert scores[1].timed_out and scores[1].cells[1].status == "timeout"
    assert not any(s.timed_out for k, s in enumerate(scores) if k != 1)
