"""One simulated launch: set up memory and observers, run the engine, collect the record."""
import numpy as np

from .context import Context
from .engine import Engine
from .memory import Memory
from .races import RaceDetector


def run_launch(prog, launch, values, options):
    ctx = Context(launch, prog, None, options.checks)
    memory = Memory(ctx)
    ctx.memory = memory
    pointers = [(p.name, v) for p, v in zip(prog.params, values) if p.is_pointer]
    addresses = iter(memory.add_globals(pointers))
    reg_values = [np.int64(next(addresses)) if p.is_pointer else v for p, v in zip(prog.params, values)]
    launch.arg_values = reg_values
    for arr in prog.shared:
        memory.add_shared(arr, launch.shared_mem if arr.dynamic else arr.nbytes)
    engine = Engine(prog, launch, memory, ctx, options)
    checks = options.checks
    if checks["race"] or checks["global_race"]:
        race = RaceDetector(engine, checks["race"], checks["global_race"])
        memory.observers.append(race)
        engine.observers.append(race)
    if options.trace_recorder is not None and hasattr(options.trace_recorder, "attach"):
        options.trace_recorder.attach(engine, memory)
    try:
        engine.run()
    finally:
        launch.steps = engine.steps
        launch.thread_instructions = engine.thread_instructions
        launch.warnings = list(engine.warnings)
        if options.trace_recorder is not None:
            launch.trace = options.trace_recorder.finish(prog)
    return launch
