"""The race shadow's record layout is fitted to each launch (simcore/checks/races.py, Layout):
the site inside an int32, an int32 with a site array, the site inside an int64, or an int64
with a site array. Every layout must give the same verdicts and the same reports. Small
launches take the first; here each kernel of the conformance corpus that races or synchronizes
is run with the thread field padded wider, which forces each of the others."""
import numpy as np
import pytest

from conformance import corpus, runner
from simcore.checks import races

# corpus kernels whose races (or absence of races) hang on the shadow: every race entry, and the
# legal kernels ordered by __syncwarp, bar.arrive, fences with atomics, atomics, atomicCAS
LEGAL = ("reverse_tile", "syncwarp_exchange", "ptx_bar_arrive", "threadfence_block", "x_cas_counter",
         "x_cas_float_max", "device_ticket", "y_syncwarp_two_sites", "y_syncwarp_orders_both_readers",
         "y_broadcast_after_barrier", "atomics_shared", "atomics_global")
ENTRIES = [e for e in corpus.ENTRIES if e.expect == "race" or e.name in LEGAL]

# the bits of a record outside its site (FLAG_BITS + id bits + lag + warp epoch + barrier epoch)
# -> the layout that forces, whatever the kernel's site count
FORCED = {31: ("int32", False), 32: ("int64", True), 63: ("int64", False)}


def _report(entry):
    res = runner.run_sim(entry)
    return res.verdict, res.detail


@pytest.fixture(scope="module")
def natural():
    return {e.name: _report(e) for e in ENTRIES}


@pytest.mark.parametrize("rest", sorted(FORCED))
def test_every_layout_gives_the_same_reports(rest, natural, monkeypatch):
    made = []
    fitted = races.Layout.for_launch.__func__

    def padded(cls, shared, slots, program):
        lay = fitted(cls, shared, slots, program)
        others = races.FLAG_BITS + lay.lag_bits + lay.wep_bits + races.EPOCH_BITS
        wide = cls(shared, max(lay.id_bits, rest - others), lay.nsites, lay.lag_bits > 0, lay.wep_bits > 0)
        made.append((wide, lay.id_bits <= rest - others))
        return wide
    monkeypatch.setattr(races.Layout, "for_launch", classmethod(padded))
    for e in ENTRIES:
        assert _report(e) == natural[e.name], e.name
    dtype, packed = FORCED[rest]
    forced = [lay for lay, exact in made if exact]
    assert len(forced) > len(made) // 2
    assert all(lay.dtype == np.dtype(dtype) and lay.packed_sites == packed for lay in forced)


def test_small_launches_take_int32_records_with_their_sites_inside_unless_warp_epochs_crowd_them(monkeypatch):
    made = []
    fitted = races.Layout.for_launch.__func__

    def watched(cls, shared, slots, program):
        made.append(fitted(cls, shared, slots, program))
        return made[-1]
    monkeypatch.setattr(races.Layout, "for_launch", classmethod(watched))
    for e in ENTRIES:
        _report(e)
    assert all(lay.dtype == np.int32 for lay in made)
    assert all(lay.packed_sites for lay in made if not lay.wep_bits)
    assert any(not lay.packed_sites for lay in made)       # syncwarp_exchange's global records
