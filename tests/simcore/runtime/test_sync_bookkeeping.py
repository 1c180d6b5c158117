"""The counts the engine keeps so that it need not look at every lane each step must always say
what a look at every lane would: the lanes waiting at each sync site (Wave.waiting_count, kept
as lanes arrive and are released), and which reconvergence points are complete
(Wave.complete_joins, which looks only at the warps of the waiting lanes, and only at the warps
whose lanes changed since resolve_joins last looked: Wave.lanes_waiting_in_changed_warps). Checked after every
step and every sync resolution of every conformance kernel (barriers, named barriers,
bar.arrive, collectives, divergence, early exits, grid sync) under several schedules and both
models."""
import sys
from pathlib import Path

import numpy as np
import pytest

from simcore.runtime import engine, sync, wave
from simcore.runtime.wave import BAR, EXIT, JOIN

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance import corpus, runner  # noqa: E402


def complete_joins_by_scan(w, waiting):
    """The rule, by a scan of the wave: a (warp, point) pair is complete when every entry of that
    point on the stacks of the warp's live lanes belongs to a lane waiting there."""
    live = np.flatnonzero((w.st != EXIT) & (w.jdepth > 0))
    owner, joins = w.stack_entries(live)
    keys, members = np.unique(w.join_keys(owner, joins), return_counts=True)
    wkeys = w.join_keys(waiting, w.jtop(waiting))
    wk, there = np.unique(wkeys, return_counts=True)
    done = wk[there == members[np.searchsorted(keys, wk)]]
    return np.isin(wkeys, done)


def waiting_by_scan(w):
    return np.bincount(w.site[w.st == BAR], minlength=len(w.waiting_count) - 1)


@pytest.fixture
def checked(monkeypatch):
    """Check the bookkeeping against the scans while kernels run; -> a list of the checks made."""
    made = []

    def check_counts(w):
        assert (w.waiting_count[:-1] == waiting_by_scan(w)).all(), "waiting counts differ from the lanes' states"
        assert w.waiting_count[-1] == 0
        made.append("counts")

    advance, resolve, complete = engine.Engine.advance, sync.Sync.resolve, wave.Wave.complete_joins

    def checked_advance(self, w, *args):
        advance(self, w, *args)
        check_counts(w)

    def checked_resolve(self, w):
        result = resolve(self, w)
        check_counts(w)
        return result

    def checked_complete(self, waiting):
        everyone = np.flatnonzero(self.st == JOIN)
        looked_at = np.isin(everyone, waiting)
        assert looked_at.sum() == len(waiting) and (np.diff(waiting) > 0).all()
        result = complete(self, waiting)
        by_scan = complete_joins_by_scan(self, everyone)
        assert (result == by_scan[looked_at]).all(), "complete_joins differs from the scan"
        # the waiting lanes resolve_joins left out (warps unchanged since its last look) wait at
        # points that are not complete
        assert not by_scan[~looked_at].any(), "a completed reconvergence point was not looked at"
        made.append("joins")
        return result

    resolve_joins = sync.resolve_joins

    def checked_resolve_joins(w):
        # afterwards no reconvergence point of the wave is complete (resolve_joins looks only at
        # the warps marked since its last look: a missed mark leaves one behind)
        result = resolve_joins(w)
        everyone = np.flatnonzero(w.st == JOIN)
        if len(everyone):
            assert not complete_joins_by_scan(w, everyone).any(), "a completed reconvergence point was left"
            made.append("resolved")
        return result

    monkeypatch.setattr(sync, "resolve_joins", checked_resolve_joins)
    monkeypatch.setattr(engine.Engine, "advance", checked_advance)
    monkeypatch.setattr(sync.Sync, "resolve", checked_resolve)
    monkeypatch.setattr(wave.Wave, "complete_joins", checked_complete)
    return made


# (a kernel that gets no verdict under a configuration runs until the time limit, 600 s under the test
# suite's default: under random with the checks off two broken barrier loops, under adversarial the
# heartbeat whose flag is never set; the counts are checked as well in 30 s)
CONFIGS = [dict(schedule="lockstep", time_limit=30), dict(schedule="random", seed=1, checks=False, time_limit=30),
           dict(schedule="adversarial", time_limit=30), dict(model="stack", time_limit=30)]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_counts_match_a_scan_of_the_wave(cfg, checked):
    for entry in corpus.ENTRIES:
        res = runner.run_sim(entry, **cfg)
        assert res.verdict != "crash", f"{entry.name}: {res.detail}"
    assert "counts" in checked and "joins" in checked and "resolved" in checked   # the checks ran
