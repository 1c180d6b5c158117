"""The first code cell of every lesson: ``setup()``.

    try:
        from barrier_course.notebook import setup
    except ImportError:   # not installed: use the checkout that holds this notebook
        ...
    setup()

``setup()`` shows figures inline, and prints where ``simcore`` was imported from and which
backend a ``simcore.RawModule`` without ``backend=`` uses here, so that a student (or a
teacher reading a screenshot) knows what ran the kernels.
"""

from __future__ import annotations

import os

__all__ = ["setup", "backend_note"]


def backend_note():
    """One sentence: where kernels created without ``backend=`` run."""
    chosen = os.environ.get("SIMCORE_BACKEND") or "sim"
    if chosen == "sim":
        return "kernels run on the simulator (set SIMCORE_BACKEND=cupy to use a GPU)"
    return (f"SIMCORE_BACKEND={chosen}: kernels without backend= may run on the GPU; the "
            "cells that need the simulator's checks and traces ask for backend=\"sim\"")


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
    print("simcore from", os.path.dirname(simcore.__file__), "|", backend_note())
