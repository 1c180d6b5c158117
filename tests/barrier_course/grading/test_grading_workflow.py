"""The instructor's whole nbgrader workflow on exercise 1, as nbgrader's own tests do it.

In a temporary copy of the course: generate the release, hand in submissions that real
students write (blank, right, and several wrong), autograde them, read the scores from the
gradebook. Blank scores 0, the reference solution full marks, every wrong answer less.
"""

import json
import re

import nbformat
import pytest

from course_testing import ASSIGNMENT, NOT_DONE, copy_course, run_tool, simcore_status, strip_ansi

pytestmark = pytest.mark.slow

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
STUB = re.compile(r'^(?P<indent>[ \t]*)__simcore_todo\(.*\);[ \t]*$', re.M)

# What students hand in, as the code that replaces the stub line in the kernel.
ANSWERS = {
    # the predicated fill with the neutral value, and one unconditional barrier
    "solution": """
tile[t] = (i < n) ? in[i] : 0.0f;
__syncthreads();
""",
    # forgot the barrier: the reduction reads slots other warps have not written yet
    "missing_barrier": """
tile[t] = (i < n) ? in[i] : 0.0f;
""",
    # the original guarded fill: the barrier is inside the bounds check
    "barrier_in_guard": """
if (i < n) {
    tile[t] = in[i];
    __syncthreads();
}
""",
    # guarded fill, barrier outside: no divergence, but the tail slots are never written
    "no_neutral_fill": """
if (i < n)
    tile[t] = in[i];
__syncthreads();
""",
    # off by one: reads in[n], one past the end of the array
    "off_by_one": """
tile[t] = (i <= n) ? in[i] : 0.0f;
__syncthreads();
""",
    # wrong index: the block's local index instead of the global one
    "wrong_index": """
tile[t] = (i < n) ? in[t] : 0.0f;
__syncthreads();
""",
    # wrong neutral value: 1 is neutral for a product, not for a sum
    "wrong_neutral": """
tile[t] = (i < n) ? in[i] : 1.0f;
__syncthreads();
""",
    # early return: exited threads are not waited for, so the barriers complete, but the
    # reduction then adds the tail slots that nobody wrote
    "early_return": """
if (i >= n) return;
tile[t] = in[i];
__syncthreads();
""",
}

FULL = 10.0


def _hand_in(release: dict, answer: str | None) -> dict:
    nb = json.loads(json.dumps(release))
    if answer is None:
        return nb  # the blank release, as is
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        m = STUB.search(src)
        if m:
            code = "\n".join(m["indent"] + line for line in answer.strip("\n").splitlines())
            cell["source"] = src[: m.start()] + code + src[m.end():]
            return nb
    raise AssertionError("the release has no stub line to replace")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    why = simcore_status()
    if why:
        pytest.fail(f"the grading workflow needs the simulator: {why}")
    root = copy_course(tmp_path_factory.mktemp("course"))
    run_tool(["nbgrader", "generate_assignment", ASSIGNMENT], cwd=root)
    release = json.loads((root / "exercises" / ASSIGNMENT / NOTEBOOK).read_text())
    students = {"blank": None, **ANSWERS}
    for student, answer in students.items():
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / NOTEBOOK).write_text(json.dumps(_hand_in(release, answer), indent=1))
        (folder / "timestamp.txt").write_text("2025-01-01 12:00:00.000000 UTC")
    log = run_tool(["nbgrader", "autograde", ASSIGNMENT], cwd=root).stdout

    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in students:
            sub = gb.find_submission(ASSIGNMENT, student)
            scores[student] = (sub.score, sub.max_score)
    print("\nscores:", json.dumps(scores, indent=1))
    return root, scores, log


def _autograded(root, student):
    return nbformat.read(root / "autograded" / student / ASSIGNMENT / NOTEBOOK, as_version=4)


def _failures(nb):
    out = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade"):
            continue
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                out[meta["grade_id"]] = (o["ename"], strip_ansi(o["evalue"]))
    return out


def test_max_score_is_ten(graded):
    _, scores, _ = graded
    assert {m for _, m in scores.values()} == {FULL}


def test_blank_scores_zero(graded):
    root, scores, _ = graded
    assert scores["blank"][0] == 0, scores
    fails = _failures(_autograded(root, "blank"))
    assert fails and all(e == "NotImplementedError" and NOT_DONE in v for e, v in fails.values()), fails


def test_solution_full_marks(graded):
    root, scores, log = graded
    assert scores["solution"][0] == FULL, (scores, _failures(_autograded(root, "solution")))


@pytest.mark.parametrize("student", [s for s in ANSWERS if s != "solution"])
def test_wrong_answer_loses_points(graded, student):
    root, scores, _ = graded
    assert scores[student][0] < FULL, (student, scores[student])
    fails = _failures(_autograded(root, student))
    print(f"\n{student}: " + json.dumps({k: v[1][:300] for k, v in fails.items()}, indent=1))
    # the student is told why, by the grader: a fault report or wrong values, and the launch
    for grade_id, (ename, evalue) in fails.items():
        assert ename == "AssertionError", (grade_id, ename, evalue)
        assert "block_sum" in evalue and ("Launch:" in evalue or "compile" in evalue), evalue


def test_hidden_tests_were_run(graded):
    root, _, _ = graded
    release = (root / "exercises" / ASSIGNMENT / NOTEBOOK).read_text()
    assert "seeds=(1, 2)" not in release and 'model="stack"' not in release
    for student in ("blank", "solution"):
        text = "\n".join(c.source for c in _autograded(root, student).cells)
        assert "seeds=(1, 2)" in text and 'model="stack"' in text, \
            f"hidden tests missing from {student}'s autograded notebook"
