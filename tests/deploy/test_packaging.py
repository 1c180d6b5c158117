"""Packaging, entry points and configuration: cheap checks of what the slow tests rely on."""

import os
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

import pytest

from course_testing import ROOT


@pytest.fixture(scope="module")
def pyproject():
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_distribution_and_extras(pyproject):
    project = pyproject["project"]
    assert project["name"] == "gpu-barriers-course"
    assert project["requires-python"] == ">=3.10,<3.14"
    assert {d.split(">")[0].split("<")[0].split("=")[0] for d in project["dependencies"]} >= {"numpy", "pycparser"}
    extras = project["optional-dependencies"]
    assert set(extras) >= {"course", "gpu", "test"}
    assert any(d.startswith("nbgrader>=0.9,<0.10") for d in extras["course"])
    assert any(d.startswith("jupyterlab>=4,<5") for d in extras["course"])
    assert "cupy-cuda12x" in extras["gpu"]
    assert any("[course]" in d for d in extras["test"])
    markers = " ".join(pyproject["tool"]["pytest"]["ini_options"]["markers"])
    assert "slow:" in markers and "gpu:" in markers


def test_packages_are_installed_from_this_checkout():
    import barrier_course
    import simcore

    for module in (simcore, barrier_course):
        assert any(Path(p).resolve().parent == ROOT for p in module.__path__), module.__path__


def test_readme_starts_with_the_two_commands():
    lines = [line.strip() for line in (ROOT / "README.md").read_text().splitlines() if line.strip()]
    commands = [line for line in lines[:6] if line.startswith("python3 tasks.py")]
    assert commands[:2] == ["python3 tasks.py course", "python3 tasks.py test"], lines[:6]


def test_ci_script():
    run = ROOT / ".ci" / "run"
    assert os.access(run, os.X_OK), ".ci/run must be executable"
    text = run.read_text()
    assert "set -euo pipefail" in text and "tasks.py test" in text


def test_binder_installs_the_course_extra():
    reqs = [line.split("#")[0].strip() for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    assert ".[course]" in reqs


def test_tasks_help():
    proc = subprocess.run([sys.executable, str(ROOT / "tasks.py")], capture_output=True, text=True)
    assert proc.returncode == 2 and "tasks.py course" in proc.stdout


def test_nbgrader_config_roots_at_the_repository():
    from traitlets.config.loader import PyFileConfigLoader

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    course = cfg.CourseDirectory
    assert course.root == str(ROOT)
    assert (course.source_directory, course.release_directory) == ("solutions", "exercises")
    assert course.course_id == "gpu-barriers"
    stub = cfg.ClearSolutions.code_stub["python"]
    compile(stub, "stub", "exec")  # valid Python, so released notebooks parse
    assert "__simcore_todo" in stub
