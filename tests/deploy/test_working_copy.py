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


def test_a_side_version_the_student_works_in_is_never_overwritten(tmp_path):
    tasks = _tasks()
    course, work = tmp_path / "course", tmp_path / "work"
    course.mkdir()
    (course / "01.ipynb").write_text(_lesson("one"))
    tasks.sync_working_copy(course, work)
    (work / "01.ipynb").write_text(_lesson("my answer"))
    (course / "01.ipynb").write_text(_lesson("one, revised"))
    tasks.sync_working_copy(course, work)
    (work / "01.new.ipynb").write_text(_lesson("my second answer, in the new version"))
    (course / "01.ipynb").write_text(_lesson("one, revised again"))
    done = tasks.sync_working_copy(course, work)
    assert "my answer" in (work / "01.ipynb").read_text()
    assert "my second answer" in (work / "01.new.ipynb").read_text()
    assert "revised again" in (work / "01.new2.ipynb").read_text()
    assert any("01.new2.ipynb" in line for line in done)
    # an untouched side version is simply refreshed
    (course / "01.ipynb").write_text(_lesson("one, third revision"))
    tasks.sync_working_copy(course, work)
    assert "third revision" in (work / "01.new2.ipynb").read_text()
    assert "my second answer" in (work / "01.new.ipynb").read_text()


def test_the_working_copy_holds_the_exercises_and_links_to_them(tmp_path):
    """00_start and the lessons in my-course/ link to the student's own copies of the
    exercises (my-course/exercises/), never to the tracked release; every relative notebook
    link of the copy resolves inside it."""
    import re

    tasks = _tasks()
    work = tmp_path / "my-course"
    meta = {"kernelspec": {"display_name": "K", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.x"}}
    tasks.sync_course(work, metadata=meta)
    exercises = sorted(p.name for p in (ROOT / "exercises").iterdir() if p.is_dir())
    for name in exercises:
        copy = work / "exercises" / name / f"{name}.ipynb"
        assert json.loads(copy.read_text())["metadata"] == meta, name
    start = json.loads((work / "00_start.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in start["cells"] if c["cell_type"] == "markdown")
    for name in exercises:
        assert f"](exercises/{name}/{name}.ipynb)" in text, name
    assert "../exercises/" not in text
    for nb_path in work.glob("*.ipynb"):
        nb = json.loads(nb_path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for link in re.findall(r"\]\(([^)#\s]+\.ipynb)", "".join(cell["source"])):
                if link.startswith("http"):
                    continue
                target = (nb_path.parent / link).resolve()
                assert target.exists() and work.resolve() in target.parents, (nb_path.name, link)


def _release_course(tmp_path):
    from course_testing import copy_course

    course = copy_course(tmp_path / "course", parts=("nbgrader_config.py", "solutions", "exercises"))
    return course


def test_generate_keeps_a_students_work_without_confirmation(tmp_path):
    """nbgrader generate_assignment --force (tasks.py release, the Formgrader's Generate) on a
    release folder someone worked in: a backup, and nothing removed without confirmation."""
    import os

    from course_testing import run_tool, tool_env

    course = _release_course(tmp_path)
    name = "ex01_tail_handling"
    work = course / "exercises" / name / f"{name}.ipynb"
    work.write_text(work.read_text().replace("__simcore_todo", "my_finished_answer", 1))
    proc = run_tool(["nbgrader", "generate_assignment", name, "--force"], cwd=course, check=False)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "my_finished_answer" in work.read_text(), "the student's work was removed"
    assert "Not replacing the release of ex01_tail_handling" in proc.stdout
    backups = list((course / "release-backups").glob(f"{name}-*/{name}.ipynb"))
    assert len(backups) == 1 and "my_finished_answer" in backups[0].read_text()
    # confirmed: replaced, and the backup of this run is there as well
    env = dict(tool_env(), BARRIER_COURSE_REPLACE_RELEASE="1")
    import subprocess

    from course_testing import tool
    subprocess.run([tool("nbgrader"), "generate_assignment", name, "--force"], cwd=course,
                   env=env, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert "my_finished_answer" not in work.read_text()
    assert len(list((course / "release-backups").glob(f"{name}-*"))) == 2
    # what generate wrote is nobody's work: the next generate needs no confirmation
    run_tool(["nbgrader", "generate_assignment", name, "--force"], cwd=course)
    assert os.environ.get("BARRIER_COURSE_REPLACE_RELEASE") is None


def test_release_guard_trusts_the_committed_release(tmp_path):
    """In a git checkout the committed release is nobody's work; a changed or an added file is."""
    from barrier_course.nbgrader.release_guard import changed_files

    repo = tmp_path / "repo"
    folder = repo / "exercises" / "ex"
    folder.mkdir(parents=True)
    (folder / "ex.ipynb").write_text("released")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "release"], cwd=repo, check=True)
    assert changed_files(repo, folder) == []
    (folder / "ex.ipynb").write_text("released, then answered")
    (folder / "notes.txt").write_text("mine")
    assert changed_files(repo, folder) == ["exercises/ex/ex.ipynb", "exercises/ex/notes.txt"]


def test_fetch_goes_into_the_working_copy(tmp_path):
    """The Assignment List's Fetch puts an assignment under my-course/ (ignored by git), not
    into the repository's root."""
    from course_testing import run_tool

    course = _release_course(tmp_path)
    out = run_tool(["python", "-c", "from nbgrader.apps import NbGrader; a = NbGrader(); "
                    "a.load_config_file(); print(a.config.Exchange.assignment_dir)"], cwd=course)
    assert out.stdout.strip().splitlines()[-1] == str(course / "my-course" / "fetched")
    assert (course / "my-course" / "fetched").is_dir()


def test_a_student_session_has_no_formgrader():
    tasks = _tasks()
    student = " ".join(tasks.role_options(instructor=False))
    assert "nbgrader.server_extensions.formgrader=False" in student
    config = json.loads((tasks.lab_settings_dir(False) / "page_config.json").read_text())
    assert "@jupyter/nbgrader:formgrader" in config["disabledExtensions"]
    assert "formgrader" not in " ".join(tasks.role_options(instructor=True))


def test_a_student_session_never_writes_into_the_tracked_folders(tmp_path):
    import asyncio

    import pytest
    from tornado import web

    from barrier_course.nbgrader.student_contents import StudentContentsManager

    (tmp_path / "exercises" / "ex").mkdir(parents=True)
    (tmp_path / "my-course" / "exercises" / "ex").mkdir(parents=True)
    notebook = _lesson("released")
    for folder in ("exercises", "my-course/exercises"):
        (tmp_path / folder / "ex" / "ex.ipynb").write_text(notebook)
    manager = StudentContentsManager(root_dir=str(tmp_path))
    assert "--ServerApp.contents_manager_class=" + tasks_student_contents() in \
        _tasks().role_options(instructor=False)

    async def walk():
        tracked = await manager.get("exercises/ex/ex.ipynb")
        assert tracked["writable"] is False
        for call in (manager.save(tracked, "exercises/ex/ex.ipynb"),
                     manager.delete_file("exercises/ex/ex.ipynb"),
                     manager.rename_file("exercises/ex/ex.ipynb", "mine.ipynb")):
            with pytest.raises(web.HTTPError) as info:
                await call
            assert info.value.status_code == 403 and "my-course/exercises/" in info.value.log_message
        mine = await manager.get("my-course/exercises/ex/ex.ipynb")
        assert mine["writable"] is True
        mine["content"]["cells"][0]["source"] = "my answer"
        await manager.save(mine, "my-course/exercises/ex/ex.ipynb")

    asyncio.run(walk())
    assert (tmp_path / "exercises" / "ex" / "ex.ipynb").read_text() == notebook
    assert "my answer" in (tmp_path / "my-course" / "exercises" / "ex" / "ex.ipynb").read_text()


def tasks_student_contents():
    return _tasks().STUDENT_CONTENTS


def test_tasks_release_asks_before_replacing_a_changed_release(tmp_path, monkeypatch, capsys):
    """`tasks.py release` without a terminal and without --yes replaces nothing; with --yes
    it replaces the release and keeps a backup."""
    from pathlib import Path

    from course_testing import copy_course

    tasks = _tasks()
    course = copy_course(tmp_path / "course", parts=("nbgrader_config.py", "solutions", "exercises"))
    name = "ex01_tail_handling"
    work = course / "exercises" / name / f"{name}.ipynb"
    work.write_text(work.read_text().replace("__simcore_todo", "my_finished_answer", 1))
    monkeypatch.setattr(tasks, "ROOT", course)
    monkeypatch.setattr(tasks, "ensure_installed", lambda extras: None)
    monkeypatch.setattr(tasks, "venv_bin", lambda tool: Path(sys.executable).parent / tool)
    monkeypatch.setattr(sys, "stdin", None)
    assert tasks.cmd_release([name]) == 1
    out = capsys.readouterr().out
    assert f"exercises/{name} holds changes since its release" in out and "--yes" in out
    assert "my_finished_answer" in work.read_text()
    assert tasks.cmd_release([name, "--yes"]) == 0
    assert "my_finished_answer" not in work.read_text()
    kept = list((course / "release-backups").glob(f"{name}-*/{name}.ipynb"))
    assert kept and "my_finished_answer" in kept[0].read_text()
