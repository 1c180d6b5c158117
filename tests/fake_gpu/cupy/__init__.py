"""A stand-in for CuPy, for testing the lessons with SIMCORE_BACKEND=cupy on a machine
without a GPU (tests/course/test_lessons_gpu_backend.py puts this folder first on PYTHONPATH).

It behaves the way the GPU backend matters to a lesson: kernels run (on simcore's simulator,
with every check off, as a GPU does not check), device arrays are numpy copies, and nothing
of the simulator's own (trace, schedule, fault reports) reaches the notebook through
simcore's ``backend="cupy"``. It reports no device (``getDeviceCount() == 0``), so the
optional cells that measure or compare on a real GPU skip, as they do without one. It is not
CuPy and implements only what simcore's CuPy backend calls.
"""

import numpy as np

from . import cuda  # noqa: F401

__version__ = "0.0-fake"


def asarray(host):
    return np.array(host, copy=True)


def asnumpy(dev):
    return np.asarray(dev)


class _Function:
    def __init__(self, kernel):
        self._kernel = kernel

    def __call__(self, grid, block, args, shared_mem=0):
        self._kernel(grid, block, args, shared_mem=shared_mem, checks=False)


class RawModule:
    def __init__(self, code, options=(), name_expressions=None, enable_cooperative_groups=False):
        import simcore

        self._module = simcore.RawModule(code=code, options=tuple(options), backend="sim",
                                         name_expressions=name_expressions,
                                         enable_cooperative_groups=enable_cooperative_groups)

    def compile(self):
        return None

    def get_function(self, name):
        return _Function(self._module.get_function(name))
