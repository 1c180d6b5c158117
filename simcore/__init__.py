"""simcore: a SIMT simulator that runs CUDA C kernels on the CPU and names undefined synchronisation.

    import numpy as np, simcore
    mod = simcore.RawModule(code=src)
    kernel = mod.get_function("reverse")
    kernel((4,), (256,), (out, x, np.int32(n)))

See docs/simcore-api.md for the whole API.

The package's names are imported on first use (PEP 562 ``__getattr__``): ``import simcore`` costs
only the error classes, so a script that needs one kernel does not pay for the timing model, the
trace viewer or the GPU backend.  ``from simcore import X`` and ``simcore.X`` behave as before.
"""
import importlib
import importlib.util

from .errors import (CompileError, DataRace, Deadlock, DivergentBarrier, DivisionByZero, InvalidMask,
                     KernelFault, LaunchError, MisalignedAccess, ReadOnlyWrite, NamedBarrierError, OutOfBounds, SimcoreError,
                     SimulatorError, SimWarning, StepLimit, TimeLimit, UndefinedValue, UninitializedRead)

# name -> submodule that defines it; one row per public name imported lazily.
_LAZY_NAMES = {
    "CHECKS": ".module", "SCHEDULES": ".module", "Kernel": ".module", "Launch": ".module",
    "RawKernel": ".module", "RawModule": ".module", "gpu_available": ".module",
    "Param": ".lower.program",
    "DeviceGlobal": ".device_global",
    "Trace": ".recording.trace", "TraceStep": ".recording.trace", "WarpState": ".recording.trace",
    "Estimate": ".perf", "Sweep": ".perf", "tune": ".perf",
}


def __getattr__(name):
    """Import the submodule that defines `name` the first time it is asked for, and keep it."""
    where = _LAZY_NAMES.get(name)
    if where is None:
        return _submodule(name)
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def _submodule(name):
    """`simcore.runtime.engine` etc.: a submodule is imported when first named, as the eager package did."""
    if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
        raise AttributeError(f"module 'simcore' has no attribute {name!r}")
    return importlib.import_module(f".{name}", __name__)


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMES))


__all__ = ["RawModule", "RawKernel", "Kernel", "Launch", "Param", "gpu_available", "CHECKS", "SCHEDULES",
           "SimcoreError", "CompileError", "LaunchError", "SimulatorError", "KernelFault", "SimWarning",
           "DivergentBarrier", "Deadlock", "DataRace", "InvalidMask", "UndefinedValue", "UninitializedRead",
           "NamedBarrierError", "OutOfBounds", "StepLimit", "TimeLimit", "MisalignedAccess", "DivisionByZero", "ReadOnlyWrite",
           "Trace", "TraceStep", "WarpState", "DeviceGlobal", "tune", "Estimate", "Sweep"]
__version__ = "0.1.0"
