"""The parts of ``cupy.cuda`` that simcore's CuPy backend touches (see ../__init__.py)."""

from . import compiler, runtime  # noqa: F401


class Device:
    id = 0
