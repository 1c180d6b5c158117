"""One simulated launch: set up memory and observers, run the engine, collect the record."""
import numpy as np

from .context import Context
from .engine import Engine
from .memory import Memory, region_base
from .races import RaceDetector


def run_launch(prog, launch, values, options):
    ctx = Context(launch, prog, None, options.checks)
    memory = Memory(ctx)
    ctx.memory = memory
    reg_values = []
    for k, (p, v) in enumerate(zip(prog.params, values)):
        if p.is_pointer:
            rid = memory.add_global(k, p.name, v)
            reg_values.append(np.int64(region_base(rid)))
        else:
            reg_values.append(v)
    launch.arg_values = reg_values
    for arr in prog.shared:
        memory.add_shared(arr, launch.shared_mem if arr.dynamic else arr.nbytes)
    engine = Engine(prog, launch, memory, ctx, options)
    checks = options.checks
    if checks["race"] or checks["global_race"]:
        race = RaceDetector(engine, checks["race"], checks["global_race"])
        memory.observers.append(race)
        engine.observers.append(race)
    try:
        engine.run()
    finally:
        launch.steps = engine.steps
        launch.thread_instructions = engine.thread_instructions
        launch.warnings = list(engine.warnings)
        if options.trace_recorder is not None:
            launch.trace = options.trace_recorder.finish(prog)
    return launch
