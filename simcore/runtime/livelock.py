"""A CAS loop that can never finish: the livelock watch of atomicCAS sites.

A correct CAS loop fails only because another thread's update came first, and that thread
then leaves the loop: a site's failing instructions in a row are bounded by the updates other
threads make, a few per thread. A site where every lane keeps failing while the value at the address keeps
changing (a duplicated atomicCAS: the first CAS of the iteration changes the value that the
second one compares with) fails forever; the counter climbs, so no state ever repeats and only
the time limit would stop it. A lock that stays taken does not count here (its value does not
change): that is a wait, judged by the watchdog.
"""
import numpy as np


class CasWatch:
    def __init__(self, launch):
        threads = launch.num_blocks * launch.threads_per_block
        # failing instructions in a row at one site, each seeing a new value, that no correct CAS
        # loop reaches: each new value is some other thread's successful update, and every thread
        # of the launch could have made four of them in between
        self.limit = 4 * threads + 1000
        self.fails = {}      # site -> lane-failures since the site's last success
        self.calls = {}      # site -> failing instructions since the site's last success
        self.moved = {}      # site -> of those, how many saw a value other than the previous one
        self.last = {}       # site -> the value the previous failure saw

    def observe(self, site, old, compare):
        """After one atomicCAS instruction: -> True when the site is in a livelock."""
        old = np.asarray(old)
        failed = old != np.asarray(compare)
        if not failed.all():
            self.fails[site] = self.moved[site] = self.calls[site] = 0
            self.last[site] = None
            return False
        seen = old.tolist()
        prev = self.last.get(site)
        self.last[site] = seen[-1]
        self.fails[site] = self.fails.get(site, 0) + len(seen)
        self.calls[site] = self.calls.get(site, 0) + 1
        self.moved[site] = self.moved.get(site, 0) + (prev is not None and seen[0] != prev)
        # the value moved at least every 16th attempt: not a lock that stays taken
        return self.calls[site] > self.limit and 16 * self.moved[site] >= self.calls[site]
