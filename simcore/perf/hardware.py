"""GPU parameters for the timing model: the GPUs of simcore/gpus.py (simcore/data/gpus.json,
each value with its source), under the names perf/ has always given them."""
from ..gpus import GPU, barrier_cycles, get_gpu, known_gpus

__all__ = ["GPU", "barrier_cycles", "get_gpu", "known_gpus"]
