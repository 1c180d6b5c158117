"""nbgrader's exchange on one machine, the README's steps: release, fetch, submit, collect,
autograde, feedback, with two students in folders of their own.

In a temporary copy of the course (nbgrader_config.py + solutions/), with HOME in the
temporary folder: the instructor releases exercise 1 into the course's own exchange/ (no
system folder), alice and bob fetch it into their folders, alice writes the right fill, bob
a fill without the barrier and also edits a locked test cell, both submit under their
student ids, the instructor collects and autogrades (alice 10/10, bob less; the log shows
none of the warnings the issue saw, except the checksum warning for the cell bob really
changed), generates and releases feedback, and both students fetch it.
"""

from __future__ import annotations

import json
import re
import stat
import subprocess
from pathlib import Path

import pytest

from course_testing import ASSIGNMENT, copy_course, tool, tool_env

pytestmark = pytest.mark.slow

COURSE_ID = "gpu-barriers"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
STUB = re.compile(r'^(?P<indent>[ \t]*)__simcore_todo\(.*\);[ \t]*$', re.M)
ANSWERS = {
    "alice": "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();",  # right
    "bob": "tile[t] = (i < n) ? in[i] : 0.0f;",  # no barrier: reads slots not yet written
}
# what bob types into the locked test cell test_edge_cases (the grader must ignore it)
TAMPERED_CELL = "test_edge_cases"
SYSTEM_EXCHANGE = Path("/usr/local/share/nbgrader/exchange")
ALARMS = ("does not exist in the database", "SAWarning", "cheating attempt",
          "not recognized by", "No nbgrader_config.py")


def nbgrader(args, cwd: Path, home: Path) -> str:
    env = tool_env()
    env["HOME"] = str(home)  # nbgrader's submission cache (~/.local/share/jupyter) goes here
    proc = subprocess.run([tool("nbgrader"), *args], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-6000:]}"
    return proc.stdout


def answer(notebook: dict, code: str, tamper: bool = False) -> dict:
    for cell in notebook["cells"]:
        src = "".join(cell["source"])
        meta = cell["metadata"].get("nbgrader", {})
        if STUB.search(src):
            m = STUB.search(src)
            lines = "\n".join(m["indent"] + line for line in code.splitlines())
            cell["source"] = src[: m.start()] + lines + src[m.end():]
        elif tamper and meta.get("grade_id") == TAMPERED_CELL:
            cell["source"] = "pass  # bob was here\n"
    return notebook


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    base = tmp_path_factory.mktemp("exchange")
    course = copy_course(base / "course")
    home = base / "instructor-home"
    home.mkdir()
    system_exchange_before = SYSTEM_EXCHANGE.exists()
    logs = {}

    # the Formgrader and the Assignment List see an (empty) exchange before any release
    logs["list"] = nbgrader(["list", "--course", COURSE_ID], course, home)
    nbgrader(["generate_assignment", ASSIGNMENT], course, home)
    logs["release"] = nbgrader(["release_assignment", ASSIGNMENT], course, home)
    exchange = course / "exchange"

    students = {}
    for student, code in ANSWERS.items():
        folder = base / "students" / student
        folder.mkdir(parents=True)
        # each student has a config of their own naming the course and the exchange, as a
        # student account on a shared machine would have
        (folder / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
            f"c.Exchange.root = {str(exchange)!r}\n")
        logs[f"fetch {student}"] = nbgrader(["fetch_assignment", ASSIGNMENT], folder, folder)
        path = folder / ASSIGNMENT / NOTEBOOK
        path.write_text(json.dumps(answer(json.loads(path.read_text()), code,
                                          tamper=student == "bob"), indent=1))
        logs[f"submit {student}"] = nbgrader(["submit", ASSIGNMENT, "--student", student],
                                             folder, folder)
        students[student] = folder

    logs["collect"] = nbgrader(["collect", ASSIGNMENT], course, home)
    logs["autograde"] = nbgrader(["autograde", ASSIGNMENT], course, home)
    logs["feedback"] = nbgrader(["generate_feedback", ASSIGNMENT], course, home)
    logs["release_feedback"] = nbgrader(["release_feedback", ASSIGNMENT], course, home)
    for student, folder in students.items():
        logs[f"fetch_feedback {student}"] = nbgrader(
            ["fetch_feedback", ASSIGNMENT, "--student", student], folder, folder)

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission(ASSIGNMENT, s).score for s in ANSWERS}
    print("\nscores:", scores)
    return {"course": course, "students": students, "logs": logs, "scores": scores,
            "system_exchange_before": system_exchange_before}


def test_release_uses_the_course_exchange(round_trip):
    exchange = round_trip["course"] / "exchange"
    assert (exchange / COURSE_ID / "outbound" / ASSIGNMENT / NOTEBOOK).is_file()
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o777
    assert "Released as" in round_trip["logs"]["release"]
    if not round_trip["system_exchange_before"]:
        assert not SYSTEM_EXCHANGE.exists(), "release created the system-wide exchange"


def test_both_students_fetch_submit_and_are_collected(round_trip):
    course, logs = round_trip["course"], round_trip["logs"]
    for student in ANSWERS:
        assert f"Submitted as: {COURSE_ID} {ASSIGNMENT}" in logs[f"submit {student}"]
        assert (course / "submitted" / student / ASSIGNMENT / NOTEBOOK).is_file()
        assert (course / "submitted" / student / ASSIGNMENT / "timestamp.txt").is_file()


def test_autograde_scores_the_kernels(round_trip):
    scores = round_trip["scores"]
    assert scores["alice"] == 10.0, scores
    assert scores["bob"] < 10.0, scores  # a wrong kernel loses points


def test_autograde_logs_no_false_alarm(round_trip):
    log = round_trip["logs"]["autograde"]
    for alarm in ALARMS:
        assert alarm not in log, f"autograde logged {alarm!r}:\n{log[-4000:]}"
    # hidden tests no longer read as a changed cell; bob's real edit still warns, once
    changed = re.findall(r"Attribute 'checksum' for cell (\w+) has changed", log)
    assert changed == [TAMPERED_CELL], log[-4000:]


def test_the_whole_round_trip_is_quiet(round_trip):
    for step, log in round_trip["logs"].items():
        for alarm in ALARMS:
            assert alarm not in log, f"{step} logged {alarm!r}:\n{log[-3000:]}"


def test_students_fetch_their_feedback(round_trip):
    for student, folder in round_trip["students"].items():
        pages = list((folder / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert len(pages) == 1, (student, pages)
        text = pages[0].read_text()
        expected = "10.0 / 10.0" if student == "alice" else "/ 10.0"
        assert expected in text, student
        assert "BEGIN HIDDEN TESTS" not in text and "bob was here" not in text
