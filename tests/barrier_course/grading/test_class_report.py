"""`tasks.py grade --report`: the class picture (barrier_course/grading/class_report.py).

A class of eleven made-up students answers exercise 1: four put the fill's barrier inside
`if (i < n)` (a deadlock at the fill), three leave the barrier out (a race between the fill
and the reduction), one reads `in[i]` without the bounds check, three answer right. The
report must count the students per fault and name the instructor kernel's region where the
fault report points, show one example answer per fault without the student's name, rank
the failed properties, and give the distribution of totals, as HTML (inline SVG chart) and
JSON next to the gradebook. The class is graded as a Kubernetes Indexed Job would grade it:
three shards (`--shard I/3 --scores DIR`), then the gather step (`--scores DIR --report`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course_testing import ASSIGNMENT, ROOT, copy_course

from barrier_course.grading.class_report import REPORT_FOLDER, kernel_regions

pytestmark = pytest.mark.slow

STUB = re.compile(r'^(?P<indent>[ \t]*)__simcore_todo\(.*\);[ \t]*$', re.M)
ANSWERS = {
    "divergent": "if (i < n) {{\n    tile[t] = in[i];  // {name}\n    __syncthreads();\n}}",
    "race": "tile[t] = (i < n) ? in[i] : 0.0f;  // {name}",
    "oob": "tile[t] = in[i];  // {name}\n__syncthreads();",
    "right": "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();",
}
#: names that no page would contain by chance (the report must not show them)
CLASS = {"divergent": ["dora_q7", "dan_q7", "dina_q7", "dave_q7"],
         "race": ["rita_q7", "rob_q7", "ravi_q7"], "oob": ["olga_q7"],
         "right": ["ann_q7", "abe_q7", "amy_q7"]}


def _submit(course: Path, student: str, code: str) -> None:
    released = ROOT / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = json.loads(released.read_text())
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        m = STUB.search(src)
        if m:
            lines = "\n".join(m["indent"] + line for line in code.splitlines())
            cell["source"] = src[: m.start()] + lines + src[m.end():]
            break
    folder = course / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / f"{ASSIGNMENT}.ipynb").write_text(json.dumps(nb))


@pytest.fixture(scope="module")
def class_report(sharded):
    """The report the gather step wrote (``--report``), from the shards' scores."""
    course = sharded["course"]
    page = course / REPORT_FOLDER / f"{ASSIGNMENT}.html"
    raw = course / REPORT_FOLDER / f"{ASSIGNMENT}.json"
    return {"course": course, "page": page, "data": json.loads(raw.read_text())[ASSIGNMENT],
            "html": page.read_text()}


def test_written_next_to_the_gradebook(class_report):
    assert class_report["page"] == class_report["course"] / REPORT_FOLDER / f"{ASSIGNMENT}.html"
    assert "<svg" in class_report["html"] and "<script" not in class_report["html"]


def test_faults_counted_per_kind_and_region(class_report):
    faults = {(f["kind"], f["region"]): f["students"] for f in class_report["data"]["faults"]}
    assert faults == {("deadlock", "Fill the tile"): 4, ("race", "Fill the tile"): 3,
                      ("out_of_bounds", "Fill the tile"): 1}, faults
    top = class_report["data"]["faults"][0]
    assert top["label"] == "Deadlock at 'Fill the tile'", top
    assert "4" in class_report["html"] and "Deadlock at &#x27;Fill the tile&#x27;" in class_report["html"]


def test_each_fault_has_an_anonymised_example(class_report):
    for fault in class_report["data"]["faults"]:
        example = fault["example"]
        assert example["answer"], fault
        assert "by student" in example["answer"], example
        assert example["line"] and f"at line {example['line']}" in example["report"], example
    for students in CLASS.values():
        for student in students:
            assert student not in class_report["html"], student
    divergent = next(f for f in class_report["data"]["faults"] if f["kind"] == "deadlock")
    assert "if (i < n)" in divergent["example"]["answer"]
    assert "Fill the tile" not in divergent["example"]["answer"]  # only the student's lines


def test_distribution_and_failed_properties(class_report):
    data = class_report["data"]
    assert data["students"] == 11 and data["possible"] == 10
    dist = dict(data["distribution"])
    assert dist[10] == 3 and sum(dist.values()) == 11, dist
    failed = {row["property"]: row["students"] for row in data["failed_properties"]}
    assert max(failed.values()) <= 8 and failed, failed
    assert list(failed.values()) == sorted(failed.values(), reverse=True)


def test_regions_are_the_instructor_kernels_comments():
    source = "\n".join([
        "extern \"C\" __global__ void k(float *a)", "{", "    int t = threadIdx.x;", "",
        "    // Fill the tile. Every thread must arrive.", "    // ### BEGIN SOLUTION",
        "    a[t] = 0;", "    // ### END SOLUTION", "", "    // Tree reduction: all threads.",
        "    a[0] += a[t];", "}"])
    names = kernel_regions(source)
    assert names[3] == "" and names[7] == "Fill the tile" and names[11] == "Tree reduction"


# ---- the same class graded in shards (a Kubernetes Indexed Job's pods), then gathered --------


def _grade(course: Path, *args) -> str:
    import subprocess
    import sys

    from course_testing import tool_env

    proc = subprocess.run([sys.executable, "-m", "barrier_course.grading.class_grading", ASSIGNMENT,
                           "--root", str(course), *args], cwd=course, env=tool_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:]
    return proc.stdout


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    """The class graded in three shards (as three pods would), then gathered with --report."""
    from course_testing import run_tool

    course = copy_course(tmp_path_factory.mktemp("report") / "course")
    for kind, students in CLASS.items():
        for student in students:
            # the name in a comment: every answer differs, and the example must drop it
            _submit(course, student, ANSWERS[kind].format(name=f"by {student}"))
    run_tool(["nbgrader", "generate_assignment", ASSIGNMENT], course)
    scores = course / ".scores" / ASSIGNMENT
    shards = [_grade(course, "--shard", f"{i}/3", "--scores", str(scores), "--jobs", "1")
              for i in range(3)]
    files_after_shards = sorted(p.name for p in scores.glob("*.json"))
    gathered = _grade(course, "--scores", str(scores), "--jobs", "2", "--report")
    return {"course": course, "shards": shards, "gathered": gathered, "scores": scores,
            "files": files_after_shards}


def test_each_shard_grades_its_share(sharded):
    counts = [int(re.search(r"(\d+) submission\(s\)", out)[1]) for out in sharded["shards"]]
    assert counts == [4, 4, 3], sharded["shards"]      # 11 students, every third from the I-th
    # one score file per distinct answer: the three right answers are one, the eight others
    # differ (the name in a comment)
    assert len(sharded["files"]) == 9, sharded["files"]


def test_gather_grades_nothing_again_and_fills_the_gradebook(sharded):
    out = sharded["gathered"]
    assert "0 graded again" in out, out[-2000:]
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{sharded['course'] / 'gradebook.db'}") as gb:
        got = {s: gb.find_submission(ASSIGNMENT, s).score
               for students in CLASS.values() for s in students}
    assert all(got[s] == 10.0 for s in CLASS["right"]), got
    assert all(got[s] < 10.0 for k, ss in CLASS.items() if k != "right" for s in ss), got
    assert "Deadlock at 'Fill the tile'" in out and "class report:" in out, out[-2000:]


def test_a_bad_shard_is_refused_with_a_reason(sharded):
    import subprocess
    import sys

    from course_testing import tool_env

    proc = subprocess.run([sys.executable, "-m", "barrier_course.grading.class_grading", ASSIGNMENT,
                           "--root", str(sharded["course"]), "--shard", "3/3", "--scores", "x"],
                          cwd=sharded["course"], env=tool_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "I must be 0 to N-1" in proc.stderr + proc.stdout
