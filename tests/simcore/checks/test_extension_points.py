"""Extending simcore the way a maintainer would: a new launch check is one plugin file (its
rule, its message, its fault) plus one row in plugins.REGISTERED; a new warp intrinsic is one
sync-point class (its lowering and its completion) plus one row in SYNC_POINTS. Everything else
(simcore.CHECKS, the fault kinds, the option checks, sync resolution) follows from those rows."""
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import simcore
import simcore.launch
import simcore.module      # imported before a test patches launch.CHECKS, so that it keeps the real one
import simcore.runtime.runner
from simcore.frontend import ctype as T
from simcore.errors import FAULT_CLASSES, fault_class
from simcore.lower.sync_points import SYNC_POINTS, SyncPoint, grouped
from simcore.checks import Plugin
from simcore.plugins import REGISTERED, check_names, fault_kinds


# ---------------------------------------------------------------- a new check, as its own file would hold it
ExitedBeforeBarrier = fault_class("ExitedBeforeBarrier", "exited_before_barrier",
                                  "A block barrier completed after some threads of the block had exited.")


class ExitedBeforeBarrierCheck(Plugin):
    """'exited_before_barrier': a __syncthreads() that completes while threads of its block have
    exited (legal, but any code added after it that they reach makes the barrier undefined)."""
    checks = ("exited_before_barrier",)
    fault = ExitedBeforeBarrier

    def on_barrier_release(self, sync, lanes):
        w = self.wave
        blocks = w.slot_block[lanes]
        arrived = np.bincount(blocks, minlength=w.nblk)
        short = np.flatnonzero((arrived > 0) & (arrived < w.tpb))
        if len(short):
            b = int(short[0])
            self.report.raise_("exited_before_barrier", f"{sync.name}() completed without every thread",
                               f"{arrived[b]} of {w.tpb} threads of block {w.first_block + b} took part in the "
                               f"barrier on line {sync.line}; the others had exited.",
                               "let every thread reach the barrier, and guard the work instead.",
                               [{"line": sync.line, "text": sync.text.strip(), "what": sync.name}], None)


GUARDED = r"""
extern "C" __global__ void guarded(float *out, int n) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    if (t >= n) return;
    tile[t] = t;
    __syncthreads();
    out[t] = tile[n - 1 - t];
}
"""


@pytest.fixture
def with_new_check(monkeypatch):
    """The registry with the new check's row added, and what is derived from it."""
    registered = REGISTERED + (ExitedBeforeBarrierCheck,)
    monkeypatch.setattr(simcore.runtime.runner, "REGISTERED", registered)
    monkeypatch.setattr(simcore.launch, "CHECKS", check_names(registered))
    return registered


def run_guarded(n, **kw):
    k = simcore.RawModule(code=GUARDED).get_function("guarded")
    out = np.zeros(64, np.float32)
    k((1,), (64,), (out, np.int32(n)), **kw)
    return out


def test_a_new_check_is_a_plugin_class_and_one_registry_row(with_new_check):
    assert "exited_before_barrier" in check_names(with_new_check)
    assert "exited_before_barrier" in fault_kinds(with_new_check)
    assert FAULT_CLASSES["exited_before_barrier"] is ExitedBeforeBarrier
    with pytest.raises(ExitedBeforeBarrier) as err:
        run_guarded(40, checks=["exited_before_barrier"])
    assert err.value.kind == "exited_before_barrier"
    assert "40 of 64 threads of block 0" in str(err.value)


def test_a_new_check_is_off_unless_asked_for_and_its_kernel_then_runs(with_new_check):
    out = run_guarded(40, checks=["race"])
    assert np.array_equal(out[:40], np.arange(39, -1, -1, dtype=np.float32))
    out = run_guarded(64, checks=True)       # every check on, the new one included: a legal launch
    assert np.array_equal(out, np.arange(63, -1, -1, dtype=np.float32))


def test_every_registered_checks_fault_is_a_conformance_verdict():
    import conformance.corpus as corpus
    assert set(fault_kinds(REGISTERED)) <= set(corpus.FAULT_KINDS)
    assert simcore.CHECKS == check_names(REGISTERED)


# ---------------------------------------------------------------- a new warp intrinsic, as one class row
@dataclass(frozen=True)
class VoteCount(SyncPoint):
    """__vote_count_sync(mask, predicate): how many lanes of the mask have a true predicate
    (__popc(__ballot_sync(mask, predicate)) in one call)."""
    op: ClassVar[str] = "vote_count"
    collective: ClassVar[bool] = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 2, node)
        vals = low.eval_args(args)
        ops = {"mask": low.cast(vals[0], T.UINT), "predicate": low.condition_of(vals[1])}
        return low.sync_point(self, name, node, ops, T.INT)

    def complete(self, sync, w, site, lanes, lane_id, part_bits):
        pred = w.R[site.operands["predicate"]][lanes].astype(np.int64)
        key = w.slot_warp[lanes].astype(np.int64) << 32 | part_bits
        order = np.argsort(key, kind="stable")
        starts, gid = grouped(key[order])
        counts = np.add.reduceat(pred[order], starts)[gid]
        w.R[site.result][lanes[order]] = counts.astype(np.int32)


COUNTING = r"""
extern "C" __global__ void counting(int *out, const int *x) {
    int t = threadIdx.x;
    unsigned half = (t & 16) ? 0xffff0000u : 0x0000ffffu;
    out[t] = __vote_count_sync(half, x[t] > 2);
}
"""


def test_a_new_warp_intrinsic_is_one_sync_point_class_row(monkeypatch):
    monkeypatch.setitem(SYNC_POINTS, "__vote_count_sync", VoteCount())
    k = simcore.RawModule(code=COUNTING).get_function("counting")
    x = (np.arange(64) % 7).astype(np.int32)
    out = np.zeros(64, np.int32)
    k((1,), (64,), (out, x), schedule="random", seed=3)
    big = (x > 2).reshape(4, 16).sum(axis=1)       # per 16-lane group of the mask
    assert np.array_equal(out, np.repeat(big, 16))


def test_a_new_warp_intrinsics_mask_is_checked_like_every_collective(monkeypatch):
    monkeypatch.setitem(SYNC_POINTS, "__vote_count_sync", VoteCount())
    src = COUNTING.replace("unsigned half = (t & 16) ? 0xffff0000u : 0x0000ffffu;", "unsigned half = 0xffffffffu;")
    src = src.replace("out[t] = __vote_count_sync(half, x[t] > 2);",
                      "if (t % 32 < 20) out[t] = __vote_count_sync(half, x[t] > 2);\n"
                      "    else out[t] = __vote_count_sync(half, 1);")     # one mask, two calls
    k = simcore.RawModule(code=src).get_function("counting")
    with pytest.raises(simcore.InvalidMask, match=r"(?s)for __vote_count_sync\(\).*at different warp intrinsics"):
        k((1,), (64,), (np.zeros(64, np.int32), np.zeros(64, np.int32)))
