"""simcore: a SIMT simulator that runs CUDA C kernels on the CPU and names undefined synchronisation.

    import numpy as np, simcore
    mod = simcore.RawModule(code=src)
    kernel = mod.get_function("reverse")
    kernel((4,), (256,), (out, x, np.int32(n)))

See docs/simcore-api.md for the whole API.
"""
from .errors import (CompileError, DataRace, Deadlock, DivergentBarrier, DivisionByZero, InvalidMask,
                     KernelFault, LaunchError, MisalignedAccess, ReadOnlyWrite, NamedBarrierError, OutOfBounds, SimcoreError,
                     SimulatorError, SimWarning, StepLimit, TimeLimit, UndefinedValue, UninitializedRead)
from .module import CHECKS, SCHEDULES, Kernel, Launch, RawKernel, RawModule, gpu_available
from .program import Param
from .device_global import DeviceGlobal
from .trace import Trace, TraceStep, WarpState
from .perf import Estimate, Sweep, tune

__all__ = ["RawModule", "RawKernel", "Kernel", "Launch", "Param", "gpu_available", "CHECKS", "SCHEDULES",
           "SimcoreError", "CompileError", "LaunchError", "SimulatorError", "KernelFault", "SimWarning",
           "DivergentBarrier", "Deadlock", "DataRace", "InvalidMask", "UndefinedValue", "UninitializedRead",
           "NamedBarrierError", "OutOfBounds", "StepLimit", "TimeLimit", "MisalignedAccess", "DivisionByZero", "ReadOnlyWrite",
           "Trace", "TraceStep", "WarpState", "DeviceGlobal", "tune", "Estimate", "Sweep"]
__version__ = "0.1.0"
