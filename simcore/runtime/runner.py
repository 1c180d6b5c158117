"""One simulated launch: set up the reporter, the plugins, the context, the memory and the
engine, run it, fill the launch record."""
from contextlib import contextmanager

import numpy as np

from .activemask import ActiveMask
from .allocator import keep_freed_memory
from .context import Context
from .engine import Engine, source_lines
from .memory import Memory, PointerTable, StructArgument
from . import warp_batches
from ..checks import build_plugins
from ..plugins import REGISTERED
from ..checks.report import Reporter


def module_storage(prog):
    """Fresh bytes for the module's __device__/__constant__ variables (their initial values)."""
    return {v.name: np.frombuffer(v.init, np.uint8).copy() for v in prog.module_vars}


def build_engine(prog, launch, values, options, extra_plugins=(), module_vars=None, engine_class=Engine,
                 started=None):
    """The engine of one launch, ready to run. values: the marshalled arguments; extra_plugins:
    plugin classes to build for this launch whatever the options say (e.g. a profiler);
    module_vars: the bytes of the module's __device__/__constant__ variables, name -> uint8
    array, written in place (default: fresh ones with their initial values); engine_class: the
    step loop's kind (warp_batches.BatchedEngine); started: the watchdog.launch_clock() the launch's
    time limit counts from (default: now)."""
    keep_freed_memory()     # a launch's arrays reuse the last launch's pages (see allocator.py)
    report = Reporter(prog, launch, options, *source_lines(prog))
    extra = [cls(launch, prog, report, options) for cls in extra_plugins]
    plugins = build_plugins(REGISTERED, launch, prog, report, options, extra=extra)
    ctx = Context(launch, prog, report, plugins, ActiveMask(options.schedule, options.model, options.seed))
    memory = Memory(report, plugins)
    ctx.memory = memory
    launch.arg_values = global_arguments(memory, prog, values)
    for arr in prog.shared:
        memory.add_shared(arr, launch.shared_mem if arr.dynamic else arr.nbytes)
    structs = memory.launch_structs       # a struct passed by value: its bytes, addresses filled in
    for var in getattr(prog, "local_vars", ()):
        memory.add_local(var, structs.get(var.param) if var.param else None)
    if prog.module_vars:
        memory.add_module_variables(prog.module_vars, module_storage(prog) if module_vars is None else module_vars)
    return engine_class(prog, launch, memory, ctx, options, report, plugins, started)


def global_arguments(memory, prog, values):
    """Give every array argument its region -> the parameters' values (addresses for pointers).
    A `T **` argument (memory.PointerTable) is a table of the addresses of its arrays, itself an
    array of its own; its arrays alias the other arguments when their bytes do."""
    pointers, tables, structs = [], [], []
    for p, v in zip(prog.params, values):
        if isinstance(v, StructArgument):
            structs.append((p.name, v))
        elif isinstance(v, PointerTable):
            table = np.zeros(len(v), np.int64)
            tables.append((len(pointers), table, v))
            pointers.append((p.name, table, False))
        elif p.is_pointer:
            pointers.append((p.name, v, p.type.startswith("const ") and p.type.count("*") == 1))
    for _, _, v in tables:
        name = next(p.name for p, x in zip(prog.params, values) if x is v)
        pointers += [(f"{name}[{j}]", a, False) for j, a in enumerate(v.arrays)]
    for name, v in structs:
        pointers += [(f"{name}.{member}", a, False) for _, member, a in v.pointers]
    addresses = memory.add_globals(pointers)
    first_inner = len(pointers) - sum(len(v) for _, _, v in tables) - sum(len(v.pointers) for _, v in structs)
    for _, table, v in tables:
        table[:] = addresses[first_inner:first_inner + len(v)]
        first_inner += len(v)
    memory.launch_structs = {}     # parameter name -> the bytes of its struct (pointer members set)
    for name, v in structs:
        memory.launch_structs[name] = v.with_addresses(addresses[first_inner:first_inner + len(v.pointers)])
        first_inner += len(v.pointers)
    it = iter(addresses)
    return [np.int64(next(it)) if p.is_pointer else v for p, v in zip(prog.params, values)]


def run_launch(prog, launch, values, options, extra_plugins=(), block_ranges=None, module_vars=None):
    """Run a launch and fill its record (steps, warnings, and what the plugins add, such as the
    trace), also when it faults. block_ranges: [(first block, count)] to run only those blocks,
    each range as one wave (default: every block). -> the engine (its plugins hold what they
    collected: `engine.plugins.of_type(cls)`). A per-warp schedule's launch is first attempted
    batched (warp_batches.py); unless that ends cleanly, it runs here as always."""
    started = None
    if block_ranges is None and warp_batches.eligible(prog, launch, options, extra_plugins):
        engine, started = warp_batches.attempt(build_engine, prog, launch, values, options, module_vars,
                                               block_ranges)
        if engine is not None:
            fill_record(engine, launch)
            return engine
    engine = build_engine(prog, launch, values, options, extra_plugins, module_vars, started=started)
    with recording(engine, launch):
        engine.run(block_ranges)
    return engine


@contextmanager
def recording(engine, launch):
    """Around running `engine` (any number of engine.run calls): however the run ends, a fault
    too, the launch record gets its steps, thread-instructions, warnings, and what the plugins
    add at the launch's end (the trace, the counters)."""
    try:
        yield engine
    finally:
        fill_record(engine, launch)


def fill_record(engine, launch):
    """The launch record's steps, thread-instructions, warnings and the plugins' additions."""
    launch.steps = engine.steps
    launch.thread_instructions = engine.thread_instructions
    launch.warnings = list(engine.report.warnings)
    engine.watchdog.end_launch()        # (its own-words watch's hooks are not the plugins')
    engine.plugins.end_launch(launch)
