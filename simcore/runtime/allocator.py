"""Keep the memory one launch frees for the next one (glibc's malloc, i.e. Linux; elsewhere nothing).

A launch allocates its per-thread arrays afresh: the wave's tables and registers, and the
temporaries of every step (at 2^16 threads one int64 array is 512 KB). glibc serves an array
above its mmap threshold (128 KB at first, raised only when a larger mapped block is freed) with
fresh pages from the kernel and unmaps it when it is freed, and it gives the top of its heap back
to the kernel once more than twice the threshold is free there. So most temporaries of a launch
at 2^16 threads start as untouched pages: one page fault every 4 KB, ~18,000 a launch of the
shuffle reduction. Which launches pay depends on what the process happened to free before (one
large freed array raises the threshold for good), so two identical trees measured 3x apart.
On a virtual machine a fault is expensive: on the benchmark's VM the faults were 70% of that
launch's CPU time (2^16 shuffle 46 ms -> 14 ms without them; an empty 2^16 launch 5.1 -> 1.4 ms).

Fixing the thresholds (mallopt) serves every array up to 32 MB (glibc's largest threshold) from
the heap and keeps up to TRIM_THRESHOLD of free heap for reuse. The process keeps what its
largest launch needed (the peak is reached anyway; the memory line's 2^20 reduction: 65 MiB after
each of 20 launches instead of 45-65), and memory stays flat across launches.

Done once, at the first launch (importing simcore changes nothing), and never when the user has
set glibc's malloc variables: their choice stands.
"""
import ctypes
import os

M_TRIM_THRESHOLD = -1       # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2 ** 20       # glibc's largest allowed (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 64 * 2 ** 20       # free memory kept at the top of the heap for the next launch

# environment variables that set the same thresholds: when present, the user decided
USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")

_state = {"done": False, "applied": False}


def user_set_malloc(environ=None):
    """True when the process's environment already tunes glibc's malloc thresholds."""
    environ = os.environ if environ is None else environ
    return any(k in environ for k in USER_SETTINGS) or "glibc.malloc." in environ.get("GLIBC_TUNABLES", "")


def _glibc():
    """The C library when it is glibc, else None."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version       # glibc only: AttributeError for musl, macOS, Windows
        return libc
    except (OSError, AttributeError, TypeError):
        return None


def keep_freed_memory():
    """Called at every launch; sets the thresholds the first time. -> whether they are set."""
    if not _state["done"]:
        _state["done"] = True
        libc = None if user_set_malloc() else _glibc()
        if libc is not None:
            ok = libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
            ok = libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
            _state["applied"] = ok
    return _state["applied"]
