"""How many blocks of a kernel fit on one SM, and what limits them (threads, blocks or
shared memory). Shared-memory sizes come from the compiled kernel
(``simcore.Kernel.shared_arrays``), never from reading the source again.

``shared_arrays(kern)``                    the kernel's static ``__shared__`` arrays and their bytes.
``blocks_per_sm(threads, shared_bytes)``   blocks that fit on one H200 SM, and what limits it.
"""

from __future__ import annotations

__all__ = ["H200_LIMITS", "shared_arrays", "blocks_per_sm"]

#: The per-SM limits of an H200 (sm_90), as in course/data/h200-barrier.json's "device".
H200_LIMITS = {"max_threads_per_sm": 2048, "max_blocks_per_sm": 32,
               "shared_memory_per_sm_kb": 228}
RESERVED_SHARED_PER_BLOCK = 1024    # bytes the runtime keeps per resident block (sm_80 and later)


def shared_arrays(kern):
    """The static ``__shared__`` arrays of a compiled kernel, as ``[(declaration, bytes)]``.

    ``declaration`` reads ``"__shared__ float tile"``; the sizes are the compiler's (macros
    and ``-D`` options applied). ``extern __shared__`` arrays are dynamic (sized by the
    launch's ``shared_mem``) and left out.
    """
    return [(f"__shared__ {a.element_type} {a.name}", a.nbytes)
            for a in kern.shared_arrays if not a.dynamic]


def blocks_per_sm(threads, shared_bytes, device=None):
    """Blocks of ``threads`` threads using ``shared_bytes`` of shared memory that fit on one SM.

    Limits from the H200 (``device`` as in h200-barrier.json): 2048 threads, 32 blocks,
    228 KB of shared memory per SM, of which the runtime keeps 1 KB per block (sm_80 and
    later). Registers are ignored. Returns ``(blocks, what_limits)``.
    """
    device = device or H200_LIMITS
    warps = -(-threads // 32)
    limits = {
        "threads": device["max_threads_per_sm"] // (warps * 32),
        "blocks": device["max_blocks_per_sm"],
        "shared memory": (device["shared_memory_per_sm_kb"] * 1024)
                         // (shared_bytes + RESERVED_SHARED_PER_BLOCK),
    }
    what = min(limits, key=lambda k: limits[k])
    return limits[what], what
