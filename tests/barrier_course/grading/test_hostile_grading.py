"""Hostile submissions of exercise 1, graded the two ways an instructor grades.

Every trick of tests/hostile_submissions.py is handed in as a notebook, next to honest
answers, in a temporary copy of the course that has its own copy of the packages (so a trick
that rewrites the installed grading code could only damage the copy, and we would see it).
Graded through the README's `nbgrader autograde` and through `tasks.py grade`
(barrier_course.grading.class_grading): no trick earns more than its kernel alone, no file outside the
submission changes, a right kernel that warns gets full marks, the feedback shows neither
the hidden tests nor the solution nor the instructor's paths.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

import hostile_submissions as hs
from barrier_course.grading.autograde import extract_answer
from barrier_course.grading.pool import score_answers
from course_testing import ASSIGNMENT, ROOT, copy_course, tool

pytestmark = pytest.mark.slow

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
SOLUTION = ROOT / "solutions" / ASSIGNMENT / NOTEBOOK
FULL = 10.0
# text that only the instructor's notebook holds: a solution comment and the hidden tests
SECRETS = ("0 is the neutral value of +", "seeds=(1, 2)", 'model="stack"', "BEGIN HIDDEN TESTS")


def _env(course):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(course / "packages")  # the copy, not the repository's packages
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PATH"] = os.pathsep.join([str(os.path.dirname(sys.executable)), env.get("PATH", "")])
    return env


def _run(args, course, timeout=900):
    proc = subprocess.run(args, cwd=course, env=_env(course), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout[-5000:]}"
    return proc.stdout


def _snapshot(course):
    """sha256 of every file that no grading step may change."""
    skip = ("autograded", "feedback", "gradebook.db", "exercises")
    out = {}
    for path in sorted(course.rglob("*")):
        rel = path.relative_to(course)
        if path.is_file() and rel.parts[0] not in skip and "__pycache__" not in rel.parts:
            out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _kernel_source(fill):
    """The answer string a student's fill makes (the instructor's kernel around it)."""
    answer = extract_answer(SOLUTION, SOLUTION)
    start = answer.index("    // ### BEGIN SOLUTION")
    end = answer.index("\n", answer.index("// ### END SOLUTION")) + 1
    body = '__simcore_todo("x");' if fill is None else fill
    return answer[:start] + "".join("    " + line + "\n" for line in body.splitlines()) + answer[end:]


@pytest.fixture(scope="module")
def kernel_scores():
    """What each kernel fill earns alone (the most a trick built on it may earn)."""
    fills = {t.name: t.kernel for t in hs.TRICKS} | {f"honest_{k}": v for k, v in hs.HONEST.items()}
    distinct = [f for f in dict.fromkeys(fills.values()) if f is not None]
    # one scorer run for all of them (score_answers: the same scores as one by one)
    by_fill = {None: 0.0} | {f: s.total for f, s in
                             zip(distinct, score_answers(SOLUTION, [_kernel_source(f) for f in distinct]))}
    return {name: by_fill[fill] for name, fill in fills.items()}


def _students(release, course):
    students = {f"honest_{k}": hs.honest(release, v) for k, v in hs.HONEST.items()}
    for trick in hs.TRICKS:
        students[trick.name] = trick.notebook(release, str(course))
    # graded after the package writer (alphabetical order): must still score 0
    students["zz_blank_after_package_write"] = hs.honest(release, None)
    return students


def _released_course(tmp_path_factory, name):
    """A copy of the course with its packages and the assignment generated: (course, release)."""
    course = copy_course(tmp_path_factory.mktemp(name))
    for pkg in ("barrier_course", "simcore"):
        shutil.copytree(ROOT / pkg, course / "packages" / pkg,
                        ignore=shutil.ignore_patterns("__pycache__"))
    _run([tool("nbgrader"), "generate_assignment", ASSIGNMENT], course)
    return course, json.loads((course / "exercises" / ASSIGNMENT / NOTEBOOK).read_text())


def _submit(course, students, timestamp=None):
    """Each student's notebook in submitted/ (with nbgrader's timestamp.txt when given)."""
    for student, nb in students.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / NOTEBOOK).write_text(json.dumps(nb, indent=1))
        if timestamp is not None:
            (folder / "timestamp.txt").write_text(timestamp)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course, release = _released_course(tmp_path_factory, "hostile")
    students = _students(release, course)
    _submit(course, students, timestamp="2025-01-01 12:00:00.000000 UTC")
    return course, list(students)


def _gradebook_scores(course, students):
    from nbgrader.api import Gradebook  # noqa: PLC0415

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {s: gb.find_submission(ASSIGNMENT, s).score for s in students}


@pytest.fixture(scope="module")
def autograded(course):
    """The README's path: nbgrader autograde, then nbgrader generate_feedback."""
    root, students = course
    before = _snapshot(root)
    start = time.monotonic()
    _run([tool("nbgrader"), "autograde", ASSIGNMENT], root)
    seconds = time.monotonic() - start
    _run([tool("nbgrader"), "generate_feedback", ASSIGNMENT], root)
    after = _snapshot(root)
    scores = _gradebook_scores(root, students)
    print(f"\nnbgrader autograde of {len(students)} submissions: {seconds:.1f} s")
    print(json.dumps(scores, indent=1))
    return scores, before, after, seconds


def _check_scores(scores, kernel_scores):
    for name, score in scores.items():
        if name.startswith("zz_"):
            assert score == 0, (name, score)
            continue
        assert score <= kernel_scores[name], f"{name} earned {score}, its kernel {kernel_scores[name]}"
    assert scores["honest_right"] == FULL and scores["honest_right_warns"] == FULL, scores
    for wrong in ("honest_no_barrier", "honest_wrong_neutral", "honest_blank"):
        assert scores[wrong] < FULL, (wrong, scores[wrong])
    assert scores["honest_blank"] == 0


def test_autograde_no_trick_earns_more_than_its_kernel(autograded, kernel_scores):
    _check_scores(autograded[0], kernel_scores)


def test_autograde_changes_no_file_outside_its_output(autograded):
    _, before, after, _ = autograded
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, changed


def test_autograde_is_not_held_by_hostile_python(autograded, course):
    root, students = course
    # the infinite loop and the output flood are never run; the kernel flood is cut
    assert autograded[3] < 60 * len(students)
    for student in students:
        path = root / "autograded" / student / ASSIGNMENT / NOTEBOOK
        assert path.stat().st_size < 400_000, (student, path.stat().st_size)


def test_feedback_shows_no_secret(autograded, course):
    root, students = course
    for student in students:
        html = (root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        for secret in SECRETS:
            assert secret not in html, (student, secret)
        assert str(root) not in html and sys.prefix not in html, student
        assert "SQLite format" not in html, student
        assert len(html) < 1_500_000, (student, len(html))


def test_feedback_tells_the_student_what_failed(autograded, course):
    root, _ = course
    html = (root / "feedback" / "honest_no_barrier" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "Data race" in html and "at line" in html
    assert "most recent call last" not in html and '.py", line' not in html
    refused = (root / "feedback" / "rebind_in_answer_cell" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "kernel_source" in refused and "one assignment" in refused
    warns = (root / "feedback" / "honest_right_warns" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "costs no points" in warns


def test_class_grading_matches_and_reports(course, autograded, kernel_scores):
    root, students = course
    before = _snapshot(root)
    out = _run([sys.executable, "-m", "barrier_course.grading.class_grading", ASSIGNMENT, "--jobs", "2",
                "--json", str(root / "feedback" / "scores.json")], root)
    print(out)
    assert _snapshot(root) == before
    scores = _gradebook_scores(root, students)
    _check_scores(scores, kernel_scores)
    assert scores == autograded[0]
    table = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert "10/10" in table["honest_right"] and "0/10" in table["honest_blank"]
    assert "refused" in table["rebind_in_answer_cell"] and "refused" in table["macro_bomb"]
    assert "not done" in table["python_infinite_loop"]
    assert "faults" in out and "timeouts" in out and "graded in" in out
    assert "precomputed, 0 graded again" in out
    saved = json.loads((root / "feedback" / "scores.json").read_text())
    assert saved[f"honest_right/{ASSIGNMENT}"]["total"] == FULL


def test_tasks_grade_without_assignment_says_how():
    proc = subprocess.run([sys.executable, str(ROOT / "tasks.py"), "grade"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    assert proc.returncode == 2 and "usage: python3 tasks.py grade ASSIGNMENT" in proc.stdout


def test_feedback_cuts_oversized_output(autograded, course):
    root, _ = course
    html = (root / "feedback" / "kernel_output_flood" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "output cut" in html


# --------------------------------------------------------------------------------------------
# a class of 30: 9 right (written several ways), 9 wrong, 12 hostile; 1 job and N jobs

RIGHT_WAYS = [
    hs.RIGHT,
    hs.RIGHT_WARNS,
    "float v = 0.0f;\nif (i < n) v = in[i];\ntile[t] = v;\n__syncthreads();",
    "tile[t] = 0.0f;\nif (i < n) tile[t] = in[i];\n__syncthreads();",
    "tile[t] = i < n ? in[i] : 0;\n__syncthreads();",
]
WRONG_WAYS = [
    hs.NO_BARRIER,
    hs.WRONG_NEUTRAL,
    "if (i < n) {\n    tile[t] = in[i];\n    __syncthreads();\n}",
    "if (i < n)\n    tile[t] = in[i];\n__syncthreads();",
    "tile[t] = (i <= n) ? in[i] : 0.0f;\n__syncthreads();",
    "tile[t] = (i < n) ? in[t] : 0.0f;\n__syncthreads();",
    "if (i >= n) return;\ntile[t] = in[i];\n__syncthreads();",
    None,
]
HOSTILE_12 = [t for t in hs.TRICKS if t.name not in
              ("python_output_flood", "kernel_output_flood", "answer_not_a_literal",
               "rebind_in_answer_cell", "patch_isclose")]


@pytest.fixture(scope="module")
def class_of_30(tmp_path_factory):
    course, release = _released_course(tmp_path_factory, "class30")
    students = {}
    for k in range(9):
        students[f"right_{k:02d}"] = hs.honest(release, RIGHT_WAYS[k % len(RIGHT_WAYS)])
        students[f"wrong_{k:02d}"] = hs.honest(release, WRONG_WAYS[k % len(WRONG_WAYS)])
    assert len(HOSTILE_12) == 12
    for trick in HOSTILE_12:
        students[f"hostile_{trick.name}"] = trick.notebook(release, str(course))
    _submit(course, students)
    assert len(students) == 30
    return course, list(students)


def test_class_of_30_with_1_and_n_jobs(class_of_30):
    root, students = class_of_30
    jobs_n = max(2, os.cpu_count() or 2)
    results, times = {}, {}
    for jobs in (1, jobs_n):
        start = time.monotonic()
        out = _run([sys.executable, "-m", "barrier_course.grading.class_grading", ASSIGNMENT,
                    "--jobs", str(jobs)], root)
        times[jobs] = time.monotonic() - start
        print("\n" + out.strip().splitlines()[-1])
        results[jobs] = _gradebook_scores(root, students)
    print(f"\nclass of 30: {times[1]:.1f} s with 1 job, {times[jobs_n]:.1f} s with {jobs_n} jobs")
    assert results[1] == results[jobs_n]
    scores = results[1]
    assert all(scores[s] == FULL for s in students if s.startswith("right_")), scores
    assert all(scores[s] < FULL for s in students if s.startswith("wrong_")), scores
    assert all(scores[s] == 0 for s in students if s.startswith("hostile_")), scores
