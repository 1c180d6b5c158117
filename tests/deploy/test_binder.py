"""Binder: a fresh environment built from binder/ alone runs the first lesson.

Does what repo2docker does with binder/requirements.txt (pip install -r from the repository
root, into a new virtual environment), then executes the lesson with nbclient *in that
environment*, importing the installed package, not the checkout.
"""

import os
import shutil
import subprocess
import textwrap
import venv

import pytest

from course_testing import ROOT, strip_ansi

pytestmark = pytest.mark.slow

LESSON = "course/01_barrier_guarantees.ipynb"
SKIP = (".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__",
        ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "gradebook.db", "submitted",
        "autograded", "feedback", "release")

RUNNER = textwrap.dedent('''
    import os, sys, nbformat
    from nbclient import NotebookClient
    import simcore
    print("simcore from", list(simcore.__path__))
    assert sys.prefix in os.path.abspath(list(simcore.__path__)[0]), "simcore not from the binder env"
    path = sys.argv[1]
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()
    print("executed", path, "with", sum(c.cell_type == "code" for c in nb.cells), "code cells")
''')


def _lesson():
    if (ROOT / LESSON).exists():
        return LESSON
    found = sorted((ROOT / "course").glob("*.ipynb"))
    if not found:
        pytest.skip("no course notebook exists yet")
    return str(found[0].relative_to(ROOT))


def test_binder_environment_runs_the_first_lesson(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(*SKIP))
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    env = dict(os.environ)
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(env_dir)
    for var in ("PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR"):
        env.pop(var, None)

    def run(*cmd, cwd=repo):
        proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1500)
        assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{strip_ansi(proc.stdout)[-8000:]}"
        return proc.stdout

    # what repo2docker runs for binder/requirements.txt (cwd: the repository root)
    run(bin_dir / "python", "-m", "pip", "install", "--no-cache-dir", "-r", "binder/requirements.txt")
    lesson = _lesson()
    script = tmp_path / "run_lesson.py"
    script.write_text(RUNNER)
    out = run(bin_dir / "python", script, repo / lesson, cwd=tmp_path)
    print(out)
    assert "executed" in out
    exts = strip_ansi(run(bin_dir / "jupyter", "labextension", "list"))
    assert "@jupyter/nbgrader" in exts and "@jupyter-widgets/jupyterlab-manager" in exts, exts
    # the course's own extension (labextension/: CUDA highlighted as C++), from the wheel's
    # data files
    ours = [line for line in exts.splitlines() if "gpu-barriers-course-cuda-highlight" in line]
    assert ours and "enabled" in ours[0] and "OK" in ours[0], exts
