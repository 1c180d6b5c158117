"""tasks.py course opens a working copy of the lessons (my-course/, ignored by git), so that a
student's outputs never dirty the checkout, and a later run brings in updated lessons
without overwriting the student's own work."""

import importlib.util
import json
import subprocess
import sys

from course_testing import ROOT


def _tasks():
    spec = importlib.util.spec_from_file_location("course_tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lesson(text):
    return json.dumps({"cells": [{"cell_type": "markdown", "id": "a", "metadata": {},
                                  "source": [text]}],
                       "metadata": {"kernelspec": {"name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 5})


def test_working_copy_follows_the_course_and_keeps_the_students_work(tmp_path):
    tasks = _tasks()
    course, work = tmp_path / "course", tmp_path / "work"
    (course / "data").mkdir(parents=True)
    (course / "01.ipynb").write_text(_lesson("one"))
    (course / "02.ipynb").write_text(_lesson("two"))
    (course / "data" / "x.json").write_text("{}")
    meta = {"kernelspec": {"display_name": "K", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.x"}}

    assert tasks.sync_working_copy(course, work, metadata=meta) == []
    assert json.loads((work / "01.ipynb").read_text())["metadata"] == meta
    assert (work / "data" / "x.json").read_text() == "{}"

    # the student works on 01; the course updates both lessons
    (work / "01.ipynb").write_text(_lesson("my answer"))
    (course / "01.ipynb").write_text(_lesson("one, revised"))
    (course / "02.ipynb").write_text(_lesson("two, revised"))
    done = tasks.sync_working_copy(course, work, metadata=meta)
    assert "my answer" in (work / "01.ipynb").read_text()
    assert "one, revised" in (work / "01.new.ipynb").read_text()
    assert "two, revised" in (work / "02.ipynb").read_text()
    assert any("kept your 01.ipynb" in line for line in done)
    assert "updated 02.ipynb" in done
    # nothing new: nothing done
    assert tasks.sync_working_copy(course, work, metadata=meta) == []


def test_kernel_metadata_is_what_the_kernel_reports():
    meta = _tasks().kernel_metadata(sys.executable)
    from ipykernel.ipkernel import IPythonKernel

    assert meta["language_info"] == dict(IPythonKernel.language_info)
    assert meta["kernelspec"]["name"] == "python3"


def test_git_ignores_the_working_copy_and_grades():
    proc = subprocess.run(["git", "check-ignore", "my-course/01.ipynb", "grades.csv"],
                          cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if proc.returncode == 128:          # not a git checkout (an sdist): nothing to check
        return
    assert proc.stdout.split() == ["my-course/01.ipynb", "grades.csv"]
