"""The first code cell of every lesson: ``setup()``.

    try:
        from barrier_course.lessons.notebook import setup
    except ImportError:   # not installed: use the checkout that holds this notebook
        ...
    setup()

``setup()`` shows figures inline, and prints where ``simcore`` was imported from and which
backend a ``simcore.RawModule`` without ``backend=`` uses here, so that a student (or a
teacher reading a screenshot) knows what ran the kernels. It also registers the ``%%cuda``
cell magic::

    %%cuda SOURCE
    extern "C" __global__ void k(float *x) { ... }

which stores the cell's body (CUDA C, not a Python string, so not one red string in the
editor) in the variable ``SOURCE``. JupyterLab 4 alone highlights every cell as Python (it
does not switch language per cell magic: jupyterlab/jupyterlab#15324); the course's
JupyterLab extension (labextension/) highlights the body as C++, and the handouts
(``tasks.py handouts``) highlight ``%%cuda`` cells as CUDA.
"""

from __future__ import annotations

import os

__all__ = ["setup", "backend_note", "cuda_magic"]


def backend_note():
    """One sentence: where kernels created without ``backend=`` run."""
    chosen = os.environ.get("SIMCORE_BACKEND") or "sim"
    if chosen == "sim":
        return "kernels run on the simulator (set SIMCORE_BACKEND=cupy to use a GPU)"
    return (f"SIMCORE_BACKEND={chosen}: kernels without backend= may run on the GPU; the "
            "cells that need the simulator's checks and traces ask for backend=\"sim\"")


def cuda_magic(line, cell, namespace):
    """``%%cuda NAME``: ``namespace[NAME] = cell`` (the kernel source, CUDA C)."""
    name = line.strip()
    if not name.isidentifier():
        raise ValueError(f"%%cuda needs the name of the variable to store the source in, "
                         f"e.g. '%%cuda SOURCE'; got {line.strip()!r}")
    namespace[name] = cell if cell.startswith("\n") else "\n" + cell


def setup():
    """Prepare a lesson notebook: figures inline, and a line saying which simcore runs."""
    import simcore

    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:                       # plain Python: nothing to configure
        shell = None
    if shell is not None:
        shell.run_line_magic("matplotlib", "inline")
        shell.register_magic_function(
            lambda line, cell: cuda_magic(line, cell, shell.user_ns),
            magic_kind="cell", magic_name="cuda")
    if os.environ.get("BARRIER_COURSE_HANDOUT"):       # a printed handout: no local paths
        print(f"simcore {simcore.__version__} |", backend_note())
    else:
        print("simcore from", os.path.dirname(simcore.__file__), "|", backend_note())
