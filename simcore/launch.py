"""Launch rules, in one place: a launch's options (keyword-only), the checks of its grid,
block and shared memory against the GPU's limits (simcore/gpus.py), the marshalling of its
arguments, and running it on the simulator.

module.Kernel (the API: `kernel(grid, block, args, **options)`) and perf/ (the timing model's
`kernel.estimate(...)`, which runs a sample of the blocks) both launch through here, so a
launch is valid for one exactly when it is for the other.
"""
from dataclasses import dataclass, field

import numpy as np

from .errors import LaunchError
from .gpus import SIMULATED_GPU, get_gpu, occupancy
from .plugins import CHECKS     # the checks' names, in the plugin registry's order
from .runtime.watchdog import DEFAULT_TIME_LIMIT, default_time_limit

SCHEDULES = ("lockstep", "round_robin", "random", "adversarial")
MODELS = ("independent", "stack")
MAX_SIMULATED_THREADS = 1 << 26   # ~67 M threads: about a minute of simulation at most


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


@dataclass(kw_only=True)
class Options:
    """How a launch runs (launch_options makes one from the keyword arguments of a launch)."""
    checks: dict
    schedule: str
    model: str
    seed: int
    max_steps: int
    trace: bool            # record launch.trace (recording/trace_recorder.py)
    time_limit: float = DEFAULT_TIME_LIMIT   # seconds; 0: none (watchdog.py)

    def blocks_per_wave(self, slots_per_block, bytes_per_slot=64, schedule=None):
        """Blocks simulated together: enough for numpy to pay off, few enough to bound memory
        (registers, local arrays and shadows of every slot stay under ~128 MB); fewer under the
        per-warp schedules, whose steps look at the whole wave to pick one warp. `schedule`:
        whose waves (default: the launch's)."""
        budget = 65536 if (schedule or self.schedule) == "lockstep" else 4096
        budget = min(budget, max(1, (128 << 20) // max(1, bytes_per_slot)))
        return max(1, budget // slots_per_block)


def launch_options(*, checks=True, schedule="lockstep", model="independent", seed=0, trace=False, max_steps=None,
                   time_limit=None):
    """-> Options from a launch's keyword arguments, each checked (a clear error names the bad one)."""
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
    return Options(checks=c, schedule=schedule, model=model, seed=int(seed),
                   max_steps=int(max_steps) if max_steps else 0, trace=bool(trace),
                   time_limit=float(time_limit) if time_limit is not None else default_time_limit())


def _is_int(v):
    """An int, but not a bool (True is the int 1 to Python, never a dimension)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def dims(d, what):
    """A grid or block as CUDA takes it (an int or 1 to 3 ints) -> (x, y, z), or a clear error."""
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


def simulated_gpu():
    """The GPU whose limits a simulated launch is held to (an H200)."""
    return get_gpu(SIMULATED_GPU)


def check_limits(grid, block):
    """A grid and block (from dims) within the GPU's limits -> the launch's threads."""
    gpu = simulated_gpu()
    threads = block[0] * block[1] * block[2]
    total = threads * grid[0] * grid[1] * grid[2]
    if threads > gpu.max_threads_per_block:
        raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - block {block} has {threads} threads; "
                          f"a block may have at most {gpu.max_threads_per_block} threads")
    for axis, (v, lim) in enumerate(zip(block, gpu.max_block_dims)):
        if v > lim:
            raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - blockDim.{'xyz'[axis]} = {v}; the "
                              f"limit is {lim}")
    for axis, (v, lim) in enumerate(zip(grid, gpu.max_grid_dims)):
        if v > lim:
            raise LaunchError(f"CUDA_ERROR_INVALID_VALUE: invalid argument - gridDim.{'xyz'[axis]} = {v}; the "
                              f"limit is {lim}")
    return total


def check_simulated_size(total):
    """The simulator's own bound on a launch's threads (a GPU would take more)."""
    if total > MAX_SIMULATED_THREADS:
        raise LaunchError(f"this launch has {total:,} threads; the simulator runs at most "
                          f"{MAX_SIMULATED_THREADS:,} per launch (a GPU would take it, a CPU would take hours). "
                          "Use a smaller grid, for example with a grid-stride loop.")


def shared_bytes(static, shared_mem, gpu=None):
    """-> the shared memory per block of a launch (`static` bytes of __shared__ arrays plus the
    launch's `shared_mem`), checked: against the default per-block limit when gpu is None (a
    launch, without cudaFuncSetAttribute), against the GPU's opt-in limit for an estimate."""
    if not isinstance(shared_mem, (int, np.integer)) or shared_mem < 0:
        raise LaunchError(f"shared_mem must be a non-negative number of bytes, not {shared_mem!r}")
    total = static + int(shared_mem)
    if gpu is not None:
        if total > gpu.shared_per_block_optin:
            raise LaunchError(f"the launch needs {total} bytes of shared memory per block; the {gpu.name} allows "
                              f"at most {gpu.shared_per_block_optin}")
        return total
    limits = simulated_gpu()
    if total > limits.shared_per_block_default:
        raise LaunchError(
            f"CUDA_ERROR_INVALID_VALUE: invalid argument - the launch needs {total} bytes of shared memory "
            f"per block ({static} static + {int(shared_mem)} dynamic), more than the default limit of "
            f"{limits.shared_per_block_default} bytes ({limits.shared_per_block_default // 1024} KB) per block. "
            f"(An {limits.key} allows up to {limits.shared_per_block_optin} bytes "
            "after cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...).)")
    return total


# what each occupancy rule is called in the cooperative launch's message
_COOPERATIVE_LIMITS = {"blocks": "blocks per SM", "warps": "threads per SM", "shared memory": "shared memory per SM"}


def check_cooperative_fits(grid, block, shared_per_block):
    """A cooperative launch needs every block resident at once (cuLaunchCooperativeKernel refuses
    more than occupancy x SMs). Registers per thread are not known to the simulator: the bound
    below counts threads, blocks and shared memory per SM only (gpus.occupancy without its
    register rule), so a GPU may refuse a launch that passes here, never the other way round."""
    gpu = simulated_gpu()
    nblocks = grid[0] * grid[1] * grid[2]
    tpb = block[0] * block[1] * block[2]
    occ = occupancy(gpu, tpb, None, shared_per_block)
    per_sm = occ.blocks_per_sm
    if nblocks > per_sm * gpu.sms:
        why = _COOPERATIVE_LIMITS[occ.limiter]
        raise LaunchError(
            f"cudaErrorCooperativeLaunchTooLarge: too many blocks in cooperative launch - {nblocks} blocks of "
            f"{tpb} threads, but all blocks of a cooperative launch must be resident at once, and an {gpu.key} "
            f"({gpu.sms} SMs) holds at most {per_sm} such blocks per SM (limited by {why}), "
            f"{per_sm * gpu.sms} in all. Launch at most that many blocks (a grid-stride loop covers the rest).")


def run(program, launch, values, options, *, module_vars=None):
    """Run a launch on the simulator (runner.run_launch) and fill its record. -> the engine."""
    from .runtime.runner import run_launch          # the run time, imported at the first launch
    return run_launch(program, launch, values, options, module_vars=module_vars)


def marshal(kernel, args):
    """The launch's arguments checked against the kernel's parameters and converted: numpy
    arrays as they are (written in place), scalars as the parameter's type, structs by value and
    pointer tables as memory.StructArgument / PointerTable. A clear error names the argument."""
    params = kernel.program.params
    if not isinstance(args, (tuple, list)):
        raise LaunchError(f"args must be a tuple of arguments, e.g. (out, x, n), not {type(args).__name__}")
    if len(args) != len(params):
        raise LaunchError(f"{kernel.signature} takes {len(params)} argument(s), got {len(args)}")
    out = []
    for k, (p, a) in enumerate(zip(params, args)):
        where = f"argument {k + 1} ('{p.name}', {p.type}) of {kernel.name}"
        if getattr(p, "inner", None) is not None:
            out.append(_pointer_table(a, p, where, kernel.module.backend))
            continue
        if not p.is_pointer and p.dtype.fields is not None:
            out.append(_struct_argument(a, p, where))
            continue
        if p.is_pointer:
            if hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray):
                if kernel.module.backend == "cupy":
                    raise LaunchError(f"{where}: pass numpy arrays; simcore copies them to the GPU and back")
                raise LaunchError(f"{where}: this is a GPU array; the simulator needs a numpy array "
                                  "(use .get() to copy it to the host)")
            if not isinstance(a, np.ndarray):
                raise LaunchError(f"{where} must be a numpy array, not {type(a).__name__}")
            a = np.asarray(a)      # subclasses (np.matrix) as plain arrays over the same memory
            if p.dtype.fields is not None:
                check_struct_array(a, p, where)
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


def _pointer_table(a, p, where, backend):
    """A `T **` parameter takes a list (or tuple) of numpy arrays of T: the kernel gets a table
    of their device addresses (CuPy's way: an array of `.data.ptr` values), each array written
    in place."""
    from .runtime.memory import PointerTable
    if isinstance(a, np.ndarray) or not isinstance(a, (list, tuple)):
        raise LaunchError(f"{where} points to pointers: pass a list of numpy arrays (e.g. [a, b]); simcore gives "
                          "the kernel the table of their device addresses on both backends")
    from .lower.program import Param
    elem = Param(p.name, p.type.replace("*", "", 1).replace("  ", " ").strip(), True, p.inner)
    arrays = []
    for j, x in enumerate(a):
        inner_where = f"element {j} of {where}"
        if not isinstance(x, np.ndarray) or x.ndim == 0:
            raise LaunchError(f"{inner_where} must be a numpy array, not {type(x).__name__}")
        if p.inner.fields is not None:
            check_struct_array(x, elem, inner_where)
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
    from .runtime.memory import StructArgument
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


def check_struct_array(a, p, where):
    """A pointer to a struct takes, as with CuPy (which passes the array's address), an array of
    a numpy structured dtype with the struct's layout (member names may differ), or any array
    whose bytes are a whole number of structs (float32 for float4 *, complex64 for a
    {float re, im} struct)."""
    from .frontend.signature import UNKNOWN_STRUCT
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
