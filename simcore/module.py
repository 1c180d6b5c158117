"""The public API: RawModule / RawKernel, mirroring cupy.RawModule / cupy.RawKernel.

    mod = simcore.RawModule(code=src)
    k = mod.get_function("reverse")
    k((blocks,), (threads,), (out, x, n), shared_mem=0)      # numpy arrays, written in place

The same call runs on a GPU through CuPy with backend="cupy" (or SIMCORE_BACKEND=cupy).
"""
import os
import warnings
from typing import NamedTuple


from .errors import CompileError, LaunchError, SimcoreError, SimulatorError, SimWarning
from .launch import (CHECKS, MODELS, SCHEDULES, Launch, Options, check_cooperative_fits, check_limits,  # noqa: F401
                     check_simulated_size, dims, launch_options, marshal, run, shared_bytes)

class SharedDeclaration(NamedTuple):
    """One ``__shared__`` variable of a kernel (``Kernel.shared_arrays``)."""
    name: str
    element_type: str    # C spelling of the element type: "float", "unsigned int", ...
    nbytes: int          # bytes per block; 0 for `extern __shared__` (sized at launch)
    dynamic: bool        # True for `extern __shared__`
    line: int            # source line of the declaration


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
        from .frontend.compiler import compile_source
        try:
            self._programs = compile_source(code, self.options, self.name_expressions)
        except CompileError as e:
            if self.backend != "cupy":
                raise e.with_traceback(None) from None
            # On the GPU the simulator's subset does not matter: NVRTC compiles the source.
            # We still need each kernel's signature to cast scalar arguments.
            from .frontend.signature import signatures
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
        from .runtime.runner import module_storage
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
        from .frontend.templates import normalise
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
        grid = dims(grid, "grid")
        block = dims(block, "block")
        launch_threads = check_limits(grid, block)
        total = shared_bytes(self.static_shared_bytes, shared_mem)
        values = marshal(self, args)
        if self.module.backend != "cupy":
            check_simulated_size(launch_threads)
        cooperative = getattr(self.module, "enable_cooperative_groups", False)
        if cooperative and self.module.backend != "cupy":
            check_cooperative_fits(grid, block, total)
        launch = Launch(self.name, grid, block, int(shared_mem), self.module.backend, schedule=schedule, model=model,
                        cooperative=cooperative)
        self.last_launch = launch
        if self.module.backend == "cupy":
            self.module._gpu.launch(self.name, grid, block, tuple(values), int(shared_mem))
            return None
        options = launch_options(checks=checks, schedule=schedule, model=model, seed=seed, trace=trace,
                                 max_steps=max_steps, time_limit=time_limit)
        run(self.program, launch, values, options, module_vars=self.module._globals)
