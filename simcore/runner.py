"""One simulated launch: set up memory and plugins, run the engine, collect the record."""
import numpy as np

from .context import Context
from .engine import Engine
from .memory import Memory
from .plugins import REGISTERED, build_plugins


def run_launch(prog, launch, values, options):
    ctx = Context(launch, prog, None)
    memory = Memory(ctx)
    ctx.memory = memory
    pointers = [(p.name, v) for p, v in zip(prog.params, values) if p.is_pointer]
    addresses = iter(memory.add_globals(pointers))
    reg_values = [np.int64(next(addresses)) if p.is_pointer else v for p, v in zip(prog.params, values)]
    launch.arg_values = reg_values
    for arr in prog.shared:
        memory.add_shared(arr, launch.shared_mem if arr.dynamic else arr.nbytes)
    engine = Engine(prog, launch, memory, ctx, options)
    plugins = build_plugins(REGISTERED, launch, prog, engine.report, options)
    engine.use(plugins)
    try:
        engine.run()
    finally:
        launch.steps = engine.steps
        launch.thread_instructions = engine.thread_instructions
        launch.warnings = list(engine.warnings)
        plugins.end_launch(launch)
    return launch
