"""The CuPy half of ``simcore.RawModule(..., backend="cupy")``.

Runs a kernel on a real NVIDIA GPU through CuPy, with the same calling convention as the
simulator: numpy arrays in, the same numpy arrays written back in place.

Nothing here imports CuPy at module level: the simulator path must work (and stay fast to
import) on machines without CuPy or without a GPU. Every ``import cupy`` is inside a function.

Interface used by ``simcore/module.py``:

* ``gpu_available() -> GpuStatus``: true when CuPy can run kernels, with ``.reason``; still a
  ``(bool, reason)`` pair; never raises.
* ``CupyModule(code, options)``: compiles eagerly with NVRTC; a compile failure becomes a
  ``simcore.CompileError`` with the line, message and source line.
* ``CupyModule.launch(name, grid, block, args, shared_mem)``: copies every numpy array to the
  device, launches, synchronises, copies every array back into the same numpy array; CUDA
  errors become ``simcore.LaunchError``.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from .gpus import SIMULATED_GPU, get_gpu

INSTALL_HINT = (
    "pip install 'gpu-barriers-course[gpu]' (which installs cupy-cuda12x; on a CUDA 13 "
    "driver/toolkit install cupy-cuda13x instead)"
)

# NVRTC log lines look like
#   kernel.cu(12): error: identifier "x" is undefined
#   /tmp/tmpab12/f00.cu(3): catastrophic error: cannot open source file "foo.h"
#   default_program(7): warning #177-D: variable "y" was declared but never referenced
_LOG_LINE = re.compile(
    r"^\s*(?P<file>[^\s()]*)\((?P<line>\d+)\):\s*"
    r"(?P<severity>catastrophic error|error|warning)(?:\s*#[\w-]+)?\s*:\s*(?P<msg>.*)$"
)


def _import_cupy():
    """Import CuPy or raise ``simcore.LaunchError`` that says how to install it."""
    try:
        import cupy  # noqa: F401  (lazy on purpose: the simulator never imports CuPy)
    except ImportError as exc:
        from simcore.errors import LaunchError

        if getattr(exc, "name", None) == "cupy":
            raise LaunchError(
                "backend='cupy' needs CuPy, which is not installed. Install the GPU extra: "
                + INSTALL_HINT
            ) from None
        raise LaunchError(
            f"CuPy is installed but could not be imported ({exc}). Check that the CuPy "
            "package matches the machine's CUDA version: " + INSTALL_HINT
        ) from exc
    return cupy


class GpuStatus(NamedTuple):
    """Whether CuPy can run kernels here and why (not). Its truth is the answer, so
    ``if gpu_available():`` works; it still unpacks as ``ok, reason = gpu_available()``."""
    available: bool
    reason: str

    def __bool__(self):
        return self.available


def gpu_available() -> GpuStatus:
    """Whether CuPy can run kernels here, and a sentence saying why (not)."""
    try:
        import cupy
    except ImportError as exc:
        if getattr(exc, "name", None) == "cupy":
            return GpuStatus(False, "CuPy is not installed (pip install 'gpu-barriers-course[gpu]')")
        return GpuStatus(False, f"CuPy is installed but cannot be imported: {exc}")
    except Exception as exc:  # a broken installation must not break the caller
        return GpuStatus(False, f"CuPy is installed but cannot be imported: {type(exc).__name__}: {exc}")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
        if count < 1:
            return GpuStatus(False, "no CUDA device: CuPy sees 0 devices")
        dev = cupy.cuda.Device()
        props = cupy.cuda.runtime.getDeviceProperties(dev.id)
        name = props.get("name", b"unknown GPU")
        if isinstance(name, bytes):
            name = name.decode(errors="replace")
        cc = f"sm_{props.get('major', '?')}{props.get('minor', '?')}"
        return GpuStatus(True, f"CuPy {cupy.__version__} sees {name} ({cc})")
    except Exception as exc:
        return GpuStatus(False, f"no CUDA device: {type(exc).__name__}: {exc}")


def parse_nvrtc_log(log: str, code: str):
    """First error of an NVRTC/NVCC log -> (line, message, source_line); (None, log, None)
    when no line looks like ``file(N): error: message``."""
    source_lines = code.splitlines()
    first_warning = None
    for raw in log.splitlines():
        m = _LOG_LINE.match(raw)
        if not m:
            continue
        line = int(m.group("line"))
        src = source_lines[line - 1] if 1 <= line <= len(source_lines) else None
        item = (line, m.group("msg").strip(), src)
        if "error" in m.group("severity"):
            return item
        if first_warning is None:
            first_warning = item
    if first_warning is not None:
        return first_warning
    return None, log.strip(), None


def _compile_error(exc: Exception, code: str):
    from simcore.errors import CompileError

    log = str(exc)
    line, msg, src = parse_nvrtc_log(log, code)
    if line is None:
        return CompileError(f"NVRTC could not compile the kernel source:\n{log.strip()}")
    extra = log.strip()
    message = f"NVRTC: {msg}"
    if extra and extra != msg:
        message += f"\n\nFull compiler log:\n{extra}"
    return CompileError(message, line=line, column=None, construct=None, source_line=src)


_CONTEXT_NOTE = (
    " After an error like this the CUDA context is unusable: restart the Python process "
    "(in Jupyter: Kernel > Restart) before launching anything else on the GPU."
)

_EXPLAIN = {
    "ILLEGAL_INSTRUCTION": "the GPU executed an illegal instruction (for instance a named "
    "barrier whose thread count is not a multiple of 32, or a barrier the hardware "
    "could not complete)",
    "IllegalInstruction": "the GPU executed an illegal instruction (for instance a named "
    "barrier whose thread count is not a multiple of 32)",
    "ILLEGAL_ADDRESS": "a thread accessed memory outside any allocation (out-of-bounds "
    "index or a bad pointer)",
    "IllegalAddress": "a thread accessed memory outside any allocation (out-of-bounds "
    "index or a bad pointer)",
    "MISALIGNED_ADDRESS": "a thread accessed memory at an address not aligned to the size "
    "of the access",
    "MisalignedAddress": "a thread accessed memory at an address not aligned to the size "
    "of the access",
    "LAUNCH_TIMEOUT": "the kernel ran too long and was killed by the driver watchdog "
    "(a hang, e.g. a deadlocked barrier)",
    "LaunchTimeout": "the kernel ran too long and was killed by the driver watchdog",
    "LAUNCH_OUT_OF_RESOURCES": "the launch needs more registers or threads than a "
    "multiprocessor has",
    "LaunchOutOfResources": "the launch needs more registers or threads than a "
    "multiprocessor has",
    "INVALID_VALUE": "the launch configuration is invalid (grid, block or shared memory "
    "size out of range)",
    "InvalidValue": "the launch configuration is invalid (grid, block or shared memory "
    "size out of range)",
    "LAUNCH_FAILED": "the kernel faulted on the GPU (unspecified launch failure)",
    "LaunchFailure": "the kernel faulted on the GPU (unspecified launch failure)",
    "HARDWARE_STACK_ERROR": "the kernel overflowed its call stack",
    "ASSERT": "a device-side assert failed",
}


def _launch_error(exc: Exception, name: str, grid, block, shared_mem: int, during: str):
    from simcore.errors import LaunchError

    text = f"{type(exc).__name__}: {exc}"
    what = None
    for key, sentence in _EXPLAIN.items():
        if key in text:
            what = sentence
            break
    sticky = any(k in text for k in ("ILLEGAL", "Illegal", "MISALIGNED", "Misaligned",
                                     "LAUNCH_FAILED", "LaunchFailure", "ASSERT", "Assert",
                                     "HARDWARE", "Hardware"))
    msg = (f"GPU error {during} kernel '{name}' (grid={tuple(grid)}, block={tuple(block)}, "
           f"shared_mem={shared_mem}): {text}")
    if what:
        msg += f". This means {what}."
    if sticky:
        msg += _CONTEXT_NOTE
    return LaunchError(msg)


class CupyModule:
    """A compiled CUDA module on the GPU, driven with numpy arguments."""

    def __init__(self, code: str, options: tuple[str, ...] = (), name_expressions: tuple[str, ...] = (),
                 enable_cooperative_groups: bool = False):
        cupy = _import_cupy()
        self.code = code
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions)
        self.cooperative = bool(enable_cooperative_groups)
        self._kernels = {}
        try:
            self._module = cupy.RawModule(code=code, options=self.options,
                                          name_expressions=self.name_expressions or None,
                                          enable_cooperative_groups=self.cooperative)
            compile_now = getattr(self._module, "compile", None)
            if compile_now is not None:
                compile_now()
            else:  # very old CuPy: touching .module compiles
                getattr(self._module, "module", None)
        except Exception as exc:
            if _is_compile_exception(exc):
                raise _compile_error(exc, code) from None
            from simcore.errors import LaunchError

            raise LaunchError(
                f"CuPy could not build the module: {type(exc).__name__}: {exc}"
            ) from exc

    def _function(self, name: str):
        fn = self._kernels.get(name)
        if fn is None:
            try:
                try:
                    fn = self._module.get_function(name)
                except Exception:
                    # Without extern "C" the symbol is C++-mangled: let NVRTC look the name up.
                    cupy = _import_cupy()
                    mangled = cupy.RawModule(code=self.code, options=self.options, name_expressions=(name,),
                                             enable_cooperative_groups=self.cooperative)
                    fn = mangled.get_function(name)
            except Exception as exc:
                from simcore.errors import CompileError

                raise CompileError(
                    f"no __global__ function named '{name}' in the module "
                    f"(declare it extern \"C\" so its name is not mangled): {exc}"
                ) from None
            self._kernels[name] = fn
        return fn

    def get_global(self, name: str, var=None):
        """The module's __device__/__constant__ variable on the GPU as a simcore.DeviceGlobal
        (var: the simulator's ModuleVariable, for its dtype and shape; else raw bytes)."""
        from .device_global import DeviceGlobal, variable_layout
        from simcore.errors import CompileError

        cupy = _import_cupy()
        try:
            ptr = self._module.get_global(name)
        except Exception as exc:
            raise CompileError(f"no __device__ or __constant__ variable named '{name}' in the module: {exc}") from None
        if var is None:
            var = self._simulator_variable(name)
        if var is not None:
            dtype, shape = variable_layout(var)
        elif getattr(ptr.mem, "size", 0):
            dtype, shape = np.dtype(np.uint8), (ptr.mem.size,)
        else:
            # CuPy's get_global does not know the variable's size (its MemoryPointer says 0 bytes)
            raise CompileError(f"the size of the variable '{name}' is unknown: the simulator's front end "
                               "could not read its declaration, and CuPy's get_global does not give it")
        return DeviceGlobal(name, dtype, shape, _GpuBacking(cupy, ptr, dtype, shape),
                            bool(var is not None and var.constant))

    def _simulator_variable(self, name):
        """The declaration of a module variable as the simulator's front end reads it (its type and
        shape), for a module made without simcore.RawModule; None when the front end cannot."""
        try:
            from .frontend.compiler import compile_source
            programs = compile_source(self.code, self.options, self.name_expressions)
        except Exception:
            return None
        return next((v for p in programs.values() for v in getattr(p, "module_vars", ()) if v.name == name), None)

    def launch(self, name: str, grid, block, args: tuple, shared_mem: int = 0) -> None:
        cupy = _import_cupy()
        fn = self._function(name)
        grid = tuple(int(g) for g in grid)
        block = tuple(int(b) for b in block)
        shared_mem = int(shared_mem or 0)
        device_args = list(args)
        copies = []  # (host bytes, device bytes)
        try:
            from .runtime.memory import PointerTable, StructArgument, overlap_groups
            arrays = [k for k, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim > 0]
            # the arrays of a `T **` argument (PointerTable) take part in the aliasing, as ("table", k, j)
            listed = [args[k] for k in arrays]
            inner = [(k, j) for k, a in enumerate(args) if isinstance(a, PointerTable) for j in range(len(a))]
            listed += [args[k].arrays[j] for k, j in inner]
            # the arrays of a struct's pointer members: ("member", k, j)
            members = [(k, j) for k, a in enumerate(args) if isinstance(a, StructArgument)
                       for j in range(len(a.pointers))]
            listed += [args[k].pointers[j][2] for k, j in members]
            inner += [("member", k, j) for k, j in members]
            slots = arrays + inner
            dev_of = {}
            # arrays that share memory on the host share one device buffer (aliasing as on the host)
            for members, offsets, host in overlap_groups([np.ascontiguousarray(a) for a in listed]):
                dev = cupy.asarray(host)
                copies.append((host, dev))
                for m, off in zip(members, offsets):
                    a = listed[m]
                    raw = dev[off:off + a.nbytes]
                    # CuPy has no structured dtypes: an array of structs goes as its bytes (the
                    # kernel only receives the address)
                    dev_of[slots[m]] = raw if a.dtype.fields is not None else raw.view(a.dtype)
            for k in arrays:
                device_args[k] = dev_of[k]
            for k, a in enumerate(args):
                if isinstance(a, PointerTable):     # CuPy's T **: an array of the copies' .data.ptr
                    device_args[k] = cupy.asarray(np.array([dev_of[(k, j)].data.ptr for j in range(len(a))],
                                                           np.uint64))
                elif isinstance(a, StructArgument):  # CuPy takes a structured scalar by value
                    data = a.with_addresses([dev_of[("member", k, j)].data.ptr for j in range(len(a.pointers))])
                    device_args[k] = data.view(a.dtype)[0]
            for k, a in enumerate(args):
                if isinstance(a, np.ndarray) and a.ndim == 0:  # 0-d array: a scalar of its dtype
                    device_args[k] = a[()]
            if shared_mem > get_gpu(SIMULATED_GPU).shared_per_block_default:    # opt in, as the GPU needs
                try:
                    fn.max_dynamic_shared_size_bytes = shared_mem
                except Exception:
                    pass
        except Exception as exc:
            raise _launch_error(exc, name, grid, block, shared_mem,
                                "copying the arguments of") from exc
        try:
            fn(grid, block, tuple(device_args), shared_mem=shared_mem)
            cupy.cuda.runtime.deviceSynchronize()
        except Exception as exc:
            raise _launch_error(exc, name, grid, block, shared_mem, "while running") from exc
        try:
            for host, dev in copies:
                if host.flags.writeable:
                    host[...] = cupy.asnumpy(dev)
        except Exception as exc:
            raise _launch_error(exc, name, grid, block, shared_mem,
                                "copying back the results of") from exc


class _GpuBacking:
    """A variable in the GPU module: read and written as bytes through CuPy."""

    def __init__(self, cupy, ptr, dtype, shape):
        self.cupy, self.ptr, self.dtype, self.shape = cupy, ptr, np.dtype(dtype), tuple(shape)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def read(self):
        raw = self.cupy.ndarray((self.nbytes,), self.cupy.uint8, self.ptr)
        return self.cupy.asnumpy(raw).view(self.dtype).reshape(self.shape)

    def write(self, a):
        host = np.ascontiguousarray(a, dtype=self.dtype).reshape(-1).view(np.uint8)
        self.ptr.copy_from_host(host.ctypes.data, host.nbytes)
        self.cupy.cuda.runtime.deviceSynchronize()


def _is_compile_exception(exc: Exception) -> bool:
    if type(exc).__name__ in ("CompileException", "NVRTCError"):
        return True
    try:
        from cupy.cuda.compiler import CompileException

        return isinstance(exc, CompileException)
    except Exception:
        return False
