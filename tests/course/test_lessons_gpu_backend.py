"""Every lesson runs with the GPU backend selected (SIMCORE_BACKEND=cupy, the README's GPU
command). On this machine CuPy is replaced by tests/fake_gpu (kernels run, but no trace,
schedule, checks or fault report comes back, as on a GPU): a cell that needs the simulator
must ask for it (``backend="sim"``), and a cell that demonstrates a legal kernel may run on
the GPU."""

import os

import pytest

from course_testing import ROOT, error_outputs, execute, notebooks, strip_ansi

pytestmark = pytest.mark.slow
LESSONS = notebooks("course")
FAKE_GPU = ROOT / "tests" / "fake_gpu"


@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_lesson_runs_with_the_gpu_backend(path, monkeypatch):
    monkeypatch.setenv("SIMCORE_BACKEND", "cupy")
    monkeypatch.setenv("BARRIER_COURSE_NO_GPU", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(FAKE_GPU), str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    nb = execute(path, allow_errors=True)
    errors = error_outputs(nb)
    assert not errors, "\n\n".join(
        f"cell {k}: {out.get('ename')}: {out.get('evalue')}\n"
        + strip_ansi("\n".join(out.get("traceback", [])))[-2000:] for k, _, out in errors)
