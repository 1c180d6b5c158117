"""The fix a race report gives in a kernel that waits on a flag or lock and has no fence at all.

A wait (a volatile load or an atomic whose value decides whether its loop goes on) orders only
the flag itself; the data written before the flag, or inside a critical section, is handed over
only by a fence on each side. The usual fix, "put __syncthreads() between line A and line B",
sends a student to a divergent barrier when the writer is `if (t == 0)` and the reader
`if (t == 32)`: the report names the fences and the wait's line first (docs/semantics.md,
"Fences and flags")."""
import sys
from pathlib import Path

import numpy as np
import pytest

import simcore
from launch_checks import fault_of

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance import corpus  # noqa: E402

CONFIGS = [dict(schedule="lockstep"), dict(schedule="adversarial"), dict(schedule="random", seed=3),
           dict(schedule="round_robin")]
IDS = lambda c: "-".join(map(str, c.values()))   # noqa: E731


def entry(name):
    """The corpus entry `name` and its kernel's source."""
    e = next(e for e in corpus.ENTRIES if e.name == name)
    return e, (ROOT / "conformance" / (e.file or f"{e.name}.cu")).read_text()


def line_of(source, text):
    """The 1-based line of `source` holding `text`."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def report_of(e, source, **cfg):
    k = simcore.RawModule(code=source).get_function(e.kernel)
    return fault_of(k, e.grid, e.block, e.make_args(), **cfg).report


# in one block: thread 0 fills a tile and sets a volatile flag; thread 32 waits for it and reads
# the tile (the corpus's ra_block_flag_shared_no_fence), its wait also written as a polling atomic
IN_BLOCK = "ra_block_flag_shared_no_fence"
WAITS = {"volatile": "ready == 0", "atomic": "atomicAdd((int*)&ready, 0) == 0"}

PLAIN = r"""
extern "C" __global__ void k(const int* in, int* out)
{
    __shared__ int tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = tile[63 - threadIdx.x];
}
"""


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@pytest.mark.parametrize("wait", sorted(WAITS))
def test_a_flag_hand_off_in_a_block_without_fences_is_told_to_fence_both_sides(wait, cfg):
    e, source = entry(IN_BLOCK)
    source = source.replace(WAITS["volatile"], WAITS[wait])
    report = report_of(e, source, **cfg)
    assert report["kind"] == "race"
    fix = report["fix"]
    # the fences first, naming the wait's line, the write's and the read's
    wait_line, write, read = (line_of(source, t) for t in ("while (", "tile[i] = in[i]", "sum += tile[i]"))
    assert fix.startswith(f"if these threads hand the data over through the flag or lock at line {wait_line},")
    assert "__threadfence_block()" in fix and f"after line {write} and before the flag is set" in fix
    assert f"before line {read}:" in fix
    assert fix.index("__threadfence_block()") < fix.index("__syncthreads()")
    assert "never inside a branch that some threads skip" in fix
    assert "it has no fence" in report["explanation"]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_a_ticket_lock_between_blocks_without_fences_is_told_to_use_threadfence(cfg):
    e, source = entry("hunt_ticket_lock_nofence")
    report = report_of(e, source, **cfg)
    assert report["kind"] == "race" and "between blocks" in report["title"]
    fix = report["fix"]
    # the poll is the wait, not the ticket taken the line before
    poll = line_of(source, "while (atomicAdd(serving, 0)")
    assert line_of(source, "atomicAdd(next, 1)") == poll - 1
    assert fix.startswith(f"if these threads hand the data over through the flag or lock at line {poll},")
    assert "__threadfence()" in fix and "__threadfence_block()" not in fix
    assert fix.endswith("the end of a launch orders every block.")


def test_a_race_in_a_kernel_that_waits_for_nothing_keeps_the_barrier_fix():
    k = simcore.RawModule(code=PLAIN).get_function("k")
    f = fault_of(k, (1,), (64,), (np.arange(64, dtype=np.int32), np.zeros(64, np.int32)))
    assert f.report["fix"].startswith("put __syncthreads() between line 5 and line 6")
    assert "fence" not in f.report["fix"] and "fence" not in f.report["explanation"]


def test_a_kernel_that_fences_gets_the_hand_off_text_of_the_release_acquire_check_not_this_one():
    # the writer fences, the reader does not: the release/acquire check words that case itself
    e, source = entry(IN_BLOCK)
    report = report_of(e, source.replace("ready = 1;", "__threadfence_block(); ready = 1;"))
    assert "it has no fence" not in report["explanation"]
    assert "the hand-off has no fence after its read" in report["title"]


def test_an_atomiccas_update_loop_is_no_wait_and_keeps_the_barrier_fix():
    # the CAS loop retries until its own CAS lands: it waits for no flag, so the fix is the
    # barrier after the loops, not fences
    e, source = entry("hunt_cas_float_max_block_nosync")
    report = report_of(e, source)
    assert report["kind"] == "race"
    assert "fence" not in report["fix"] and "flag" not in report["explanation"]
    assert "__syncthreads()" in report["fix"]
