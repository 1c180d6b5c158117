"""The public API: RawModule / RawKernel, mirroring cupy.RawModule / cupy.RawKernel.

    mod = simcore.RawModule(code=src)
    k = mod.get_function("reverse")
    k((blocks,), (threads,), (out, x, n), shared_mem=0)      # numpy arrays, written in place

The same call runs on a GPU through CuPy with backend="cupy" (or SIMCORE_BACKEND=cupy).
"""
import os
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .errors import CompileError, LaunchError, SimcoreError, SimulatorError, SimWarning
from .plugins import CHECKS
from .watchdog import DEFAULT_TIME_LIMIT

SCHEDULES = ("lockstep", "round_robin", "random", "adversarial")
MODELS = ("independent", "stack")
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = (2 ** 31 - 1, 65535, 65535)
SHARED_LIMIT = 48 * 1024          # default per-block limit without cudaFuncSetAttribute
SHARED_OPTIN_LIMIT = 227 * 1024   # an H200 with the opt-in attribute


@dataclass
class Launch:
    """The record of one launch: `kernel.last_launch`."""
    kernel: str
    grid: tuple
    block: tuple
    shared_mem: int
    backend: str
    warnings: list = field(default_factory=list)
    trace: object = None
    steps: int = 0
    thread_instructions: int = 0
    schedule: str = "lockstep"
    model: str = "independent"
    printed: list = field(default_factory=list)    # device printf output, in execution order
    printed_bytes: int = 0   # bytes of `printed` (device printf is capped in lines and bytes)
    printf_full: bool = False
    fault: object = None     # the KernelFault the launch ended in, if any (a replay opens there)
    cooperative: bool = False   # launched as cuLaunchCooperativeKernel (enable_cooperative_groups=True)

    @property
    def threads_per_block(self):
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def num_blocks(self):
        return self.grid[0] * self.grid[1] * self.grid[2]


class SharedDeclaration(NamedTuple):
    """One ``__shared__`` variable of a kernel (``Kernel.shared_arrays``)."""
    name: str
    element_type: str    # C spelling of the element type: "float", "unsigned int", ...
    nbytes: int          # bytes per block; 0 for `extern __shared__` (sized at launch)
    dynamic: bool        # True for `extern __shared__`
    line: int            # source line of the declaration


@dataclass
class Options:
    checks: dict
    schedule: str
    model: str
    seed: int
    max_steps: int
    trace: bool            # record launch.trace (plugins/trace.py)
    time_limit: float = DEFAULT_TIME_LIMIT   # seconds; 0: none (watchdog.py)

    def blocks_per_wave(self, slots_per_block, bytes_per_slot=64):
        """Blocks simulated together: enough for numpy to pay off, few enough to bound memory
        (registers, local arrays and shadows of every slot stay under ~128 MB)."""
        budget = 65536 if self.schedule == "lockstep" else 4096
        budget = min(budget, max(1, (128 << 20) // max(1, bytes_per_slot)))
        return max(1, budget // slots_per_block)


def _default_backend(backend):
    backend = backend or os.environ.get("SIMCORE_BACKEND", "sim")
    if backend not in ("sim", "cupy", "auto"):
        raise LaunchError(f"backend must be 'sim', 'cupy' or 'auto', not {backend!r}")
    if backend == "auto":
        from .cupy_backend import gpu_available
        backend = "cupy" if gpu_available() else "sim"
    return backend


def gpu_available():
    """Can backend='cupy' run here? A GpuStatus: true or false as the answer, with `.reason`
    (and still a (bool, reason) pair: `ok, reason = simcore.gpu_available()`)."""
    from .cupy_backend import gpu_available as probe
    return probe()


class RawModule:
    """A module of CUDA C source: `get_function(name)` gives a launchable Kernel."""

    def __init__(self, code=None, options=(), backend=None, *, path=None, name_expressions=None,
                 enable_cooperative_groups=False):
        if code is None and path is not None:
            with open(path) as f:
                code = f.read()
        if code is None:
            raise CompileError("RawModule needs code=<CUDA C source>")
        self.code = code
        self.options = _check_options(options)
        self.backend = _default_backend(backend)
        self.name_expressions = _check_name_expressions(name_expressions)
        # as in CuPy: the module's kernels are launched cooperatively (cuLaunchCooperativeKernel),
        # which cg::this_grid().sync() needs
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        from .compiler import compile_source
        try:
            self._programs = compile_source(code, self.options, self.name_expressions)
        except CompileError as e:
            if self.backend != "cupy":
                raise e.with_traceback(None) from None
            # On the GPU the simulator's subset does not matter: NVRTC compiles the source.
            # We still need each kernel's signature to cast scalar arguments.
            from .signature import signatures
            self._programs = signatures(code, self.options, self.name_expressions)
            if not self._programs:
                raise e.with_traceback(None) from None
        except SimcoreError as e:
            raise e.with_traceback(None) from None
        except Exception as e:   # a bug in simcore's compiler: say so plainly
            if os.environ.get("SIMCORE_DEBUG"):
                raise
            raise SimulatorError(f"internal simulator error while compiling ({type(e).__name__}: {e}). This is "
                                 "a bug in simcore, not in your kernel; set SIMCORE_DEBUG=1 for details.") from None
        # __device__/__constant__ variables: the module's own bytes, kept between launches
        self._module_vars = next((list(getattr(p, "module_vars", ())) for p in self._programs.values()), [])
        from .runner import module_storage
        self._globals = module_storage(self._programs[next(iter(self._programs))]) if self._module_vars else {}
        self._gpu = None
        if self.backend == "cupy":
            from .cupy_backend import CupyModule
            try:
                self._gpu = CupyModule(code, self.options, self.name_expressions, self.enable_cooperative_groups)
            except SimcoreError as e:
                raise e.with_traceback(None) from None

    @property
    def kernel_names(self):
        return list(self._programs)

    def get_global(self, name):
        """A `__device__` or `__constant__` variable of the module, to read and write from the
        host (CuPy: RawModule.get_global; CUDA: cudaMemcpyToSymbol). -> simcore.DeviceGlobal"""
        from .device_global import DeviceGlobal, HostBacking, variable_layout
        var = next((v for v in self._module_vars if v.name == name), None)
        if var is None and self._gpu is None:
            names = ", ".join(v.name for v in self._module_vars) or "none"
            raise CompileError(f"no __device__ or __constant__ variable named '{name}' in this module; it has: "
                               f"{names}", construct=name)
        if self._gpu is not None:
            return self._gpu.get_global(name, var)
        dtype, shape = variable_layout(var)
        return DeviceGlobal(name, dtype, shape, HostBacking(self._globals[name], dtype, shape), var.constant)

    def get_function(self, name):
        from .templates import normalise
        if isinstance(name, str) and name not in self._programs:
            # "k<256, float>" is "k<256,float>": one spelling of a template instance
            name = next((k for k in self._programs if normalise(k) == normalise(name)), name)
        if name not in self._programs:
            base = str(name).split("<")[0].strip()
            if base in getattr(self._programs, "template_kernels", ()):
                raise CompileError(f"'{name}' is an instance of the template kernel {base}: list it when creating "
                                   f"the module, RawModule(code=..., name_expressions=('{name}',)), as in CuPy",
                                   construct=base)
            raise CompileError(f"no __global__ function named '{name}' in this module; it has: "
                               f"{', '.join(self._programs) or 'none'}", construct=name)
        return Kernel(self, name)


def _check_options(options):
    """Compiler options as for CuPy: a tuple of strings ("-DN=4", ...)."""
    if options is None:
        return ()
    if isinstance(options, str):
        options = (options,)
    try:
        options = tuple(options)
    except TypeError:
        raise CompileError(f"options must be a tuple of strings such as ('-DN=4',), not {options!r}") from None
    for opt in options:
        if not isinstance(opt, str):
            raise CompileError(f"compiler option {opt!r} is not a string; write options=('-DN=4',)",
                               construct="options")
        if opt.startswith("-D") and not opt[2:].partition("=")[0].strip():
            raise CompileError(f"compiler option {opt!r} defines no name; write -DNAME or -DNAME=VALUE",
                               construct="options")
    return options


def _check_name_expressions(names):
    """CuPy's name_expressions: kernel names as written in C++ ("k<256>", "k<float>")."""
    if names is None:
        return ()
    if isinstance(names, str):
        names = (names,)
    try:
        names = tuple(names)
    except TypeError:
        raise CompileError(f"name_expressions must be a tuple of strings such as ('k<256>',), not {names!r}",
                           construct="name_expressions") from None
    for n in names:
        if not isinstance(n, str):
            raise CompileError(f"name_expressions: {n!r} is not a string; write e.g. ('k<256>', 'k<float>')",
                               construct="name_expressions")
    return names


def _detached(fault):
    """A copy of a fault for the launch record. The raised fault's traceback comes to hold the
    frames it passes through (the kernel's, the caller's), and so the record that holds it: a
    reference cycle that would keep the launch's trace alive until the cyclic GC runs."""
    copy = type(fault).__new__(type(fault))
    copy.__dict__.update(fault.__dict__)
    copy.args = fault.args
    return copy


def RawKernel(code, name, options=(), backend=None, *, enable_cooperative_groups=False):
    """Like cupy.RawKernel(code, name): one kernel of a source."""
    return RawModule(code=code, options=options, backend=backend,
                     enable_cooperative_groups=enable_cooperative_groups).get_function(name)


class Kernel:
    def __init__(self, module, name):
        self.module = module
        self.name = name
        self.program = module._programs[name]
        self.last_launch = None

    @property
    def params(self):
        return list(self.program.params)

    @property
    def signature(self):
        return f"{self.name}({', '.join(f'{p.type} {p.name}' for p in self.params)})"

    @property
    def shared_arrays(self):
        """The kernel's ``__shared__`` variables, as the compiler sized them (macros and
        ``-D`` options applied): a tuple of ``SharedDeclaration``. ``extern __shared__``
        arrays have ``nbytes == 0`` and ``dynamic=True``: the launch's ``shared_mem`` sizes
        them. Empty when only the kernel's signature is known (backend "cupy", a source
        outside the simulator's subset)."""
        return tuple(SharedDeclaration(a.name, str(a.elem), int(a.nbytes), bool(a.dynamic), int(a.line))
                     for a in getattr(self.program, "shared", ()))

    @property
    def static_shared_bytes(self):
        """Bytes of static ``__shared__`` memory each block of this kernel holds."""
        return sum(a.nbytes for a in self.shared_arrays if not a.dynamic)

    def __repr__(self):
        return f"<simcore.Kernel {self.signature} backend={self.module.backend}>"

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None, checks=True, schedule="lockstep",
                 model="independent", seed=0, trace=False, max_steps=None, time_limit=None, **unknown):
        if unknown:
            raise LaunchError(f"unknown launch option(s): {', '.join(sorted(unknown))}")
        self.last_launch = None
        try:
            self._launch(grid, block, args, shared_mem, checks, schedule, model, seed, trace, max_steps, time_limit)
        except SimcoreError as e:
            if self.last_launch is not None:
                self.last_launch.fault = _detached(e) if hasattr(e, "report") else None
                replay = getattr(self.last_launch.trace, "replay", None)
                if replay is not None:
                    replay.fault = self.last_launch.fault
            if self.last_launch is not None and self.last_launch.printed:
                print("".join(self.last_launch.printed), end="")   # what printf wrote before the fault
            raise e.with_traceback(None) from None
        except Exception as e:   # a bug in simcore: say so plainly, never a raw traceback
            if os.environ.get("SIMCORE_DEBUG"):
                raise
            raise SimulatorError(f"internal simulator error while running {self.name} ({type(e).__name__}: "
                                 f"{e}). This is a bug in simcore, not in your kernel; set SIMCORE_DEBUG=1 "
                                 "for details.") from None
        if self.last_launch.printed:
            print("".join(self.last_launch.printed), end="")
        for w in self.last_launch.warnings:
            warnings.warn(SimWarning(w), stacklevel=2)
        return None

    def estimate(self, grid, block, args, *, shared_mem=0, gpu="H200"):
        """A MODEL estimate of this launch's time on `gpu` (simcore.perf; only a sample of the
        blocks is simulated, the arrays are not written). -> simcore.perf.Estimate"""
        from .perf import estimate
        return estimate(self, grid, block, args, shared_mem=shared_mem, gpu=gpu)

    # ------------------------------------------------------------------ launch
    def _launch(self, grid, block, args, shared_mem, checks, schedule, model, seed, trace, max_steps, time_limit):
        prog = self.program
        grid = _dims(grid, "grid")
        block = _dims(block, "block")
        launch_threads = _check_limits(grid, block)
        if not isinstance(shared_mem, (int, np.integer)) or shared_mem < 0:
            raise LaunchError(f"shared_mem must be a non-negative number of bytes, not {shared_mem!r}")
        static = self.static_shared_bytes
        total = static + int(shared_mem)
        if total > SHARED_LIMIT:
            raise LaunchError(
                f"CUDA_ERROR_INVALID_VALUE: invalid argument - the launch needs {total} bytes of shared memory "
                f"per block ({static} static + {int(shared_mem)} dynamic), more than the default limit of "
                f"{SHARED_LIMIT} bytes (48 KB) per block. (An H200 allows up to {SHARED_OPTIN_LIMIT} bytes "
                "after cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...).)")
        values = self._marshal(args)
        if self.module.backend != "cupy":
            _check_size(launch_threads)
        cooperative = getattr(self.module, "enable_cooperative_groups", False)
        if cooperative and self.module.backend != "cupy":
            check_cooperative_fits(grid, block, total)
        launch = Launch(self.name, grid, block, int(shared_mem), self.module.backend, schedule=schedule, model=model,
                        cooperative=cooperative)
        self.last_launch = launch
        if self.module.backend == "cupy":
            self.module._gpu.launch(self.name, grid, block, tuple(values), int(shared_mem))
            return None
        options = _options(checks, schedule, model, seed, trace, max_steps, time_limit)
        from .runner import run_launch
        run_launch(prog, launch, values, options, module_vars=self.module._globals)

    def _marshal(self, args):
        params = self.program.params
        if not isinstance(args, (tuple, list)):
            raise LaunchError(f"args must be a tuple of arguments, e.g. (out, x, n), not {type(args).__name__}")
        if len(args) != len(params):
            raise LaunchError(f"{self.signature} takes {len(params)} argument(s), got {len(args)}")
        out = []
        for k, (p, a) in enumerate(zip(params, args)):
            where = f"argument {k + 1} ('{p.name}', {p.type}) of {self.name}"
            if getattr(p, "inner", None) is not None:
                out.append(_pointer_table(a, p, where, self.module.backend))
                continue
            if not p.is_pointer and p.dtype.fields is not None:
                out.append(_struct_argument(a, p, where))
                continue
            if p.is_pointer:
                if hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray):
                    if self.module.backend == "cupy":
                        raise LaunchError(f"{where}: pass numpy arrays; simcore copies them to the GPU and back")
                    raise LaunchError(f"{where}: this is a GPU array; the simulator needs a numpy array "
                                      "(use .get() to copy it to the host)")
                if not isinstance(a, np.ndarray):
                    raise LaunchError(f"{where} must be a numpy array, not {type(a).__name__}")
                a = np.asarray(a)      # subclasses (np.matrix) as plain arrays over the same memory
                if p.dtype.fields is not None:
                    _check_struct_array(a, p, where)
                elif a.dtype != p.dtype:
                    raise LaunchError(f"{where} must be an array of {p.dtype} ({p.type.replace(' *', '')}), "
                                      f"but the array holds {a.dtype}; convert it with .astype(np.{p.dtype})")
                if not a.flags.c_contiguous:
                    raise LaunchError(f"{where}: the array is not contiguous in memory; pass "
                                      "np.ascontiguousarray(x)")
                if not a.flags.writeable and "const" not in p.type:
                    raise LaunchError(f"{where}: the array is read-only but the kernel may write it")
                out.append(a)
            else:
                out.append(_scalar(a, p, where))
        return out



# An H200 (compute capability 9.0): what bounds the blocks resident on one SM at once.
H200_SMS = 132
MAX_BLOCKS_PER_SM = 32
MAX_THREADS_PER_SM = 2048
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024      # the runtime's own shared memory per block


def check_cooperative_fits(grid, block, shared_bytes):
    """A cooperative launch needs every block resident at once (cuLaunchCooperativeKernel refuses
    more than occupancy x SMs). Registers per thread are not known to the simulator: the bound
    below counts threads, blocks and shared memory per SM only, so a GPU may refuse a launch
    that passes here, never the other way round."""
    nblocks = grid[0] * grid[1] * grid[2]
    tpb = block[0] * block[1] * block[2]
    threads = -(-tpb // 32) * 32
    limits = {"blocks per SM": MAX_BLOCKS_PER_SM, "threads per SM": MAX_THREADS_PER_SM // threads,
              "shared memory per SM": SHARED_PER_SM // (shared_bytes + SHARED_RESERVED_PER_BLOCK)}
    per_sm = min(limits.values())
    if nblocks > per_sm * H200_SMS:
        why = min(limits, key=limits.get)
        raise LaunchError(
            f"cudaErrorCooperativeLaunchTooLarge: too many blocks in cooperative launch - {nblocks} blocks of "
            f"{tpb} threads, but all blocks of a cooperative launch must be resident at once, and an H200 "
            f"({H200_SMS} SMs) holds at most {per_sm} such blocks per SM (limited by {why}), "
            f"{per_sm * H200_SMS} in all. Launch at most that many blocks (a grid-stride loop covers the rest).")


def _pointer_table(a, p, where, backend):
    """A `T **` parameter takes a list (or tuple) of numpy arrays of T: the kernel gets a table
    of their device addresses (CuPy's way: an array of `.data.ptr` values), each array written
    in place."""
    from .memory import PointerTable
    if isinstance(a, np.ndarray) or not isinstance(a, (list, tuple)):
        raise LaunchError(f"{where} points to pointers: pass a list of numpy arrays (e.g. [a, b]); simcore gives "
                          "the kernel the table of their device addresses on both backends")
    from .program import Param
    elem = Param(p.name, p.type.replace("*", "", 1).replace("  ", " ").strip(), True, p.inner)
    arrays = []
    for j, x in enumerate(a):
        inner_where = f"element {j} of {where}"
        if not isinstance(x, np.ndarray) or x.ndim == 0:
            raise LaunchError(f"{inner_where} must be a numpy array, not {type(x).__name__}")
        if p.inner.fields is not None:
            _check_struct_array(x, elem, inner_where)
        elif x.dtype != p.inner:
            raise LaunchError(f"{inner_where} must be an array of {p.inner}, but it holds {x.dtype}; convert it "
                              f"with .astype(np.{p.inner})")
        if not x.flags.c_contiguous:
            raise LaunchError(f"{inner_where}: the array is not contiguous in memory; pass np.ascontiguousarray(x)")
        arrays.append(x)
    return PointerTable(arrays)


def _struct_argument(a, p, where):
    """A struct passed by value takes, as in CuPy, a numpy structured scalar (`arr[0]`,
    `np.zeros((), dt)[()]`; a 0-d structured array too) with the struct's layout; a struct with
    pointer members takes a dict instead, {member: value}, a numpy array for each pointer
    (nested members as "outer.inner" or nested dicts; members not given are zero), so that the
    same launch runs on both backends (each writes its own address of the array)."""
    from .memory import StructArgument
    pointers = {path: (off, dt) for path, off, dt in p.pointer_members}
    value = np.zeros((), p.dtype)
    found = []
    if isinstance(a, dict):
        flat = _flatten_members(a)
        for name, v in flat.items():
            if name in pointers:
                off, dt = pointers[name]
                if not isinstance(v, np.ndarray) or v.ndim == 0:
                    raise LaunchError(f"{where}: member '{name}' is a pointer: give it a numpy array, not "
                                      f"{type(v).__name__}")
                if dt != np.uint8 and v.dtype != dt and not (dt.fields is not None and v.nbytes % dt.itemsize == 0):
                    raise LaunchError(f"{where}: member '{name}' points to {dt}, but the array holds {v.dtype}")
                if not v.flags.c_contiguous:
                    raise LaunchError(f"{where}: member '{name}': the array is not contiguous in memory")
                found.append((off, name, v))
                continue
            try:
                field = _member(value, name)
                field[...] = v
            except (KeyError, ValueError, TypeError) as e:
                members = ", ".join(p.dtype.names)
                raise LaunchError(f"{where}: cannot set member '{name}' of {p.type} to {v!r} ({e}); its members: "
                                  f"{members}") from None
        return StructArgument(np.frombuffer(value.tobytes(), np.uint8).copy(), p.dtype,
                              sorted(found, key=lambda x: x[0]))
    if pointers:
        raise LaunchError(f"{where}: {p.type} has pointer member(s) ({', '.join(pointers)}): pass a dict "
                          f"{{member: value}} with a numpy array for each pointer, e.g. "
                          f"{{'{next(iter(pointers))}': arr}}")
    if isinstance(a, np.ndarray) and a.ndim == 0:
        a = a[()]
    if not isinstance(a, np.void) or a.dtype.fields is None:
        raise LaunchError(f"{where} is a struct passed by value: pass a numpy structured scalar with its layout, "
                          f"e.g. np.zeros((), np.dtype({p.dtype.descr!r}, align=True))[()] (or a dict of its members), "
                          f"not {type(a).__name__}")
    if a.dtype.itemsize != p.dtype.itemsize or _struct_layout(a.dtype) != _struct_layout(p.dtype):
        raise LaunchError(f"{where} is {p.type} (layout {p.dtype}, {p.dtype.itemsize} bytes), but the scalar's "
                          f"structured dtype has another layout ({a.dtype}, {a.dtype.itemsize} bytes); build it "
                          "with np.dtype([...], align=True)")
    return StructArgument(np.frombuffer(a.tobytes(), np.uint8).copy(), p.dtype)


def _flatten_members(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten_members(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _member(value, path):
    """The field of a 0-d structured array at a dotted path (a view to assign into)."""
    for part in path.split("."):
        value = value[part]
    return value


def _struct_layout(dtype):
    """(offset, format) of every number in a structured dtype, names aside."""
    out = []
    for name in dtype.names:
        sub, off = dtype.fields[name][:2]
        if sub.fields is not None:
            out += [(off + o, f) for o, f in _struct_layout(sub)]
        else:
            out.append((off, sub.str))
    return out


def _check_struct_array(a, p, where):
    """A pointer to a struct takes, as with CuPy (which passes the array's address), an array of
    a numpy structured dtype with the struct's layout (member names may differ), or any array
    whose bytes are a whole number of structs (float32 for float4 *, complex64 for a
    {float re, im} struct)."""
    from .signature import UNKNOWN_STRUCT
    if p.dtype == UNKNOWN_STRUCT:       # GPU only, a struct the signature reader did not lay out
        return
    struct = p.type.replace(" *", "").replace("const ", "")
    size = p.dtype.itemsize
    if a.dtype.fields is not None:
        if a.dtype.itemsize != size or _struct_layout(a.dtype) != _struct_layout(p.dtype):
            raise LaunchError(f"{where} points to {struct} (layout {p.dtype}, {size} bytes), but the array's "
                              f"structured dtype has another layout ({a.dtype}, {a.dtype.itemsize} bytes); "
                              f"build it with np.dtype({p.dtype.descr!r}, align=True) or use a matching layout")
    elif a.nbytes % size:
        raise LaunchError(f"{where} points to {struct} ({size} bytes each), but the array holds {a.nbytes} bytes, "
                          f"not a whole number of {struct}")


def _scalar(a, p, where):
    dtype = p.dtype
    if isinstance(a, np.ndarray):
        if a.ndim == 0:
            a = a[()]
        else:
            raise LaunchError(f"{where} is a scalar parameter but got an array")
    kind = dtype.kind
    if isinstance(a, (bool, np.bool_)):
        return dtype.type(bool(a))
    if isinstance(a, (float, np.floating)):
        if kind == "b":
            raise LaunchError(f"{where} is a bool parameter but got the floating-point value {a!r}; pass True "
                              "or False")
        if kind != "f":
            raise LaunchError(f"{where} is an integer parameter but got the floating-point value {a!r}; "
                              f"pass an integer (e.g. np.{dtype}({int(a) if np.isfinite(a) else 0}) if that is "
                              "what you mean)")
        if np.isfinite(a) and abs(float(a)) > float(np.finfo(dtype).max):
            raise LaunchError(f"{where}: {a!r} does not fit in {p.type} (largest {np.finfo(dtype).max:g})")
        return dtype.type(a)
    if isinstance(a, (int, np.integer)):
        if kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= int(a) <= info.max:
                raise LaunchError(f"{where}: {int(a)} does not fit in {p.type} ({info.min} to {info.max})")
        return dtype.type(a)
    raise LaunchError(f"{where} must be a number, not {type(a).__name__}")


def _is_int(v):
    """An int, but not a bool (True is the int 1 to Python, never a dimension)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _dims(d, what):
    if any(isinstance(v, (bool, np.bool_)) for v in (d if isinstance(d, (tuple, list)) else (d,))):
        raise LaunchError(f"{what} must be an int or a tuple of 1 to 3 ints, not {d!r}: True or False "
                          "is no number of blocks or threads")
    if _is_int(d):
        d = (int(d),)
    if not isinstance(d, (tuple, list)) or not 1 <= len(d) <= 3 or not all(_is_int(v) for v in d):
        raise LaunchError(f"{what} must be an int or a tuple of 1 to 3 ints, not {d!r}")
    d = tuple(int(v) for v in d) + (1,) * (3 - len(d))
    if any(v <= 0 for v in d):
        raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - {what} {d} has a zero or negative "
                          "dimension; every dimension must be at least 1")
    return d


MAX_SIMULATED_THREADS = 1 << 26   # ~67 M threads: about a minute of simulation at most


def _check_limits(grid, block):
    threads = block[0] * block[1] * block[2]
    total = threads * grid[0] * grid[1] * grid[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - block {block} has {threads} threads; "
                          f"a block may have at most {MAX_THREADS_PER_BLOCK} threads")
    for axis, (v, lim) in enumerate(zip(block, MAX_BLOCK_DIMS)):
        if v > lim:
            raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - blockDim.{'xyz'[axis]} = {v}; the "
                              f"limit is {lim}")
    for axis, (v, lim) in enumerate(zip(grid, MAX_GRID_DIMS)):
        if v > lim:
            raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - gridDim.{'xyz'[axis]} = {v}; the "
                              f"limit is {lim}")
    return total


def _check_size(total):
    if total > MAX_SIMULATED_THREADS:
        raise LaunchError(f"this launch has {total:,} threads; the simulator runs at most "
                          f"{MAX_SIMULATED_THREADS:,} per launch (a GPU would take it, a CPU would take hours). "
                          "Use a smaller grid, for example with a grid-stride loop.")


def _options(checks, schedule, model, seed, trace, max_steps, time_limit=None):
    if checks is True or checks is None:
        c = dict.fromkeys(CHECKS, True)
    elif checks is False:
        c = dict.fromkeys(CHECKS, False)
    elif isinstance(checks, dict):
        c = dict.fromkeys(CHECKS, True)
        for k, v in checks.items():
            if k not in CHECKS:
                raise LaunchError(f"unknown check {k!r}; the checks are: {', '.join(CHECKS)}")
            if not isinstance(v, (bool, np.bool_)):
                raise LaunchError(f"checks={{{k!r}: {v!r}}}: check {k!r} must be True or False, not {v!r} "
                                  f"(to turn it off: checks={{{k!r}: False}})")
            c[k] = bool(v)
    else:
        if isinstance(checks, str):
            checks = [checks]          # checks="race" means the one check
        try:
            names = list(checks)
        except TypeError:
            raise LaunchError("checks must be True, False, a dict such as {'race': False}, or a list of check "
                              f"names such as ['race']; not {checks!r}. The checks are: {', '.join(CHECKS)}") from None
        c = dict.fromkeys(CHECKS, False)
        for k in names:
            if k not in CHECKS:
                raise LaunchError(f"unknown check {k!r}; the checks are: {', '.join(CHECKS)}")
            c[k] = True
    if schedule not in SCHEDULES:
        raise LaunchError(f"schedule must be one of {', '.join(SCHEDULES)}, not {schedule!r}")
    if model not in MODELS:
        raise LaunchError(f"model must be 'independent' (Volta and later) or 'stack' (pre-Volta), not {model!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise LaunchError(f"seed must be a non-negative integer, not {seed!r}")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                  or max_steps <= 0):
        raise LaunchError(f"max_steps must be a positive integer (steps per wave of blocks), not {max_steps!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.number))
                                   or not time_limit > 0):
        raise LaunchError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
    return Options(c, schedule, model, int(seed), int(max_steps) if max_steps else 0, bool(trace),
                   float(time_limit) if time_limit is not None else DEFAULT_TIME_LIMIT)
