"""How many blocks of a kernel fit on one SM, and what limits them (threads, blocks or
shared memory). Shared-memory sizes come from the compiled kernel
(``simcore.Kernel.shared_arrays``), never from reading the source again; the GPU's limits and
the occupancy rule are simcore's (``simcore.gpus``: simcore/data/gpus.json).

``shared_arrays(kern)``                    the kernel's static ``__shared__`` arrays and their bytes.
``blocks_per_sm(threads, shared_bytes)``   blocks that fit on one H200 SM, and what limits it.
"""

from __future__ import annotations

from simcore.gpus import get_gpu, occupancy

__all__ = ["shared_arrays", "blocks_per_sm"]

# the occupancy rules as the lessons name them, in the order a tie is named
_LIMITS = {"warps": "threads", "blocks": "blocks", "shared memory": "shared memory"}


def shared_arrays(kern):
    """The static ``__shared__`` arrays of a compiled kernel, as ``[(declaration, bytes)]``.

    ``declaration`` reads ``"__shared__ float tile"``; the sizes are the compiler's (macros
    and ``-D`` options applied). ``extern __shared__`` arrays are dynamic (sized by the
    launch's ``shared_mem``) and left out.
    """
    return [(f"__shared__ {a.element_type} {a.name}", a.nbytes)
            for a in kern.shared_arrays if not a.dynamic]


def blocks_per_sm(threads, shared_bytes, gpu="H200"):
    """Blocks of ``threads`` threads using ``shared_bytes`` of shared memory that fit on one SM.

    Limits of ``gpu`` (an H200: 2048 threads, 32 blocks, 228 KB of shared memory per SM, of
    which the runtime keeps 1 KB per block). Registers are ignored. Returns
    ``(blocks, what_limits)``, what_limits one of "threads", "blocks", "shared memory".
    """
    limits = occupancy(get_gpu(gpu), threads, None, shared_bytes).limits
    what = min(_LIMITS, key=lambda rule: limits[rule])
    return limits[what], _LIMITS[what]
