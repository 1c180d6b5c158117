"""A CAS loop that can never finish: the livelock watch of atomicCAS sites.

A correct CAS loop fails only because another thread's update came first. A site where every
lane keeps failing while the value at its address keeps changing may still be legal: other
threads' progress can move the value any number of times (a thread spinning with atomicCAS
until a counter that many threads increment reaches its total). Only one case is certain to
fail forever, a duplicated atomicCAS (`old = atomicCAS(p, a, a+1); old = atomicCAS(p, a, a+1);`:
the first CAS of the iteration changes the value the second one compares with), and the
watch calls a site livelocked only when all of these hold, so that nothing outside the failing
lanes can end the streak:

* every instruction at the site failed for every lane that ran it, a budget of times in a row
  (a few per thread of the launch), with the value moving (not a lock that stays taken: that is
  a wait, judged by the watchdog);
* each lane retries with what it saw: it compares with the value its previous failure at this
  site returned, at the same address (a loop that compares with a constant, or probes other
  addresses, waits for something else and is no livelock of its own);
* every lane of the wave that has not exited is one of the failing lanes: no other thread,
  running or waiting, is left that could change the value or the failing lanes' course.

Otherwise the launch goes on, and only the time limit stops it, saying it is no verdict. The
counter climbs in such a loop, so no state ever repeats for the watchdog to see.
"""
import numpy as np

from .wave import EXIT


class CasWatch:
    def __init__(self, launch):
        threads = launch.num_blocks * launch.threads_per_block
        # failing instructions in a row at one site, each seeing a new value, beyond which a loop
        # that fails on its own (every other lane exited) has shown it does not stop by chance
        self.limit = 4 * threads + 1000
        self.wave = None
        self.fails = {}      # site -> lane-failures since the site's last success
        self.calls = {}      # site -> failing instructions since the site's last success
        self.moved = {}      # site -> of those, how many saw a value other than the previous one
        self.last = {}       # site -> the value the previous failure saw
        self.failers = {}    # site -> per slot: failed at the site since its last success
        self.seen = {}       # site -> (per slot: value and address its last failure saw, which slots)

    def set_wave(self, wave):
        """A new wave: slots belong to other threads now, every streak starts again."""
        self.wave = wave
        for table in (self.fails, self.calls, self.moved, self.last, self.failers, self.seen):
            table.clear()

    def observe(self, site, old, compare, addr, L):
        """After one atomicCAS instruction (lanes L): -> True when the site is in a livelock."""
        old = np.asarray(old)
        if old.size == 0:
            return False
        compare = np.broadcast_to(np.asarray(compare, dtype=old.dtype), old.shape)
        failed = old != compare
        if not failed.all() or self.wave is None:
            self._reset(site)
            return False
        lanes = self.wave.lane_index(L)
        addr = np.broadcast_to(np.asarray(addr, dtype=np.int64), old.shape)
        if not self._retries(site, lanes, old, compare, addr):
            self._reset(site)
        self._remember(site, lanes, old, addr)
        seen = old.tolist()
        prev = self.last.get(site)
        self.last[site] = seen[-1]
        self.fails[site] = self.fails.get(site, 0) + len(seen)
        self.calls[site] = self.calls.get(site, 0) + 1
        self.moved[site] = self.moved.get(site, 0) + (prev is not None and seen[0] != prev)
        failers = self.failers.setdefault(site, np.zeros(self.wave.S, bool))
        failers[lanes] = True
        # the value moved at least every 16th attempt: not a lock that stays taken
        return self.calls[site] > self.limit and 16 * self.moved[site] >= self.calls[site] \
            and self._nobody_else(failers)

    def _reset(self, site):
        self.fails[site] = self.moved[site] = self.calls[site] = 0
        self.last[site] = None
        self.failers.pop(site, None)

    def _retries(self, site, lanes, old, compare, addr):
        """Does every lane that failed here before compare with the value it saw then, at the
        same address? (A lane's first failure proves nothing either way.)"""
        record = self.seen.get(site)
        if record is None:
            return True
        values, addresses, known = record
        again = known[lanes]
        return bool((values[lanes][again] == compare[again]).all()
                    and (addresses[lanes][again] == addr[again]).all())

    def _remember(self, site, lanes, old, addr):
        record = self.seen.get(site)
        if record is None or record[0].dtype != old.dtype:
            S = self.wave.S
            record = self.seen[site] = (np.zeros(S, old.dtype), np.zeros(S, np.int64), np.zeros(S, bool))
        values, addresses, known = record
        values[lanes] = old
        addresses[lanes] = addr
        known[lanes] = True

    def _nobody_else(self, failers):
        """Is every thread of the wave that has not exited one of the site's failing lanes?"""
        live = self.wave.st != EXIT
        return not (live & ~failers).any()
