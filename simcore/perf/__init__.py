"""simcore's timing model: estimate a kernel's GPU time from a simulated sample of its blocks.

    est = kernel.estimate((grid,), (block,), args, shared_mem=0, gpu="H200")
    est.time_ms, est.breakdown, est.occupancy          # every figure is a MODEL estimate
    sweep = simcore.tune(kernel, make_launch, blocks=(32, 64, 128, 256, 512, 1024), gpu="H200")
    sweep.best, sweep.table, sweep.plot()

How it works: counters.py (what the sampled blocks do), sampling.py (which blocks run),
model.py (occupancy and the per-resource times), hardware.py (the GPU data with sources).
Validated against H200 measurements: docs/timing-validation.md.
"""
from .estimate import estimate
from .hardware import GPU, get_gpu, known_gpus
from .model import Estimate, Occupancy, occupancy
from .tune import Sweep, tune

__all__ = ["estimate", "tune", "Estimate", "Sweep", "Occupancy", "occupancy", "GPU", "get_gpu", "known_gpus"]
