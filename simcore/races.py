"""Race detection, an observer of memory accesses (the engine knows nothing of it).

Shadow memory per granule (the kernel's smallest access size) remembers the last writer and
the readers of the current *barrier interval*. Two accesses race when they come from
different threads of one block, at least one writes (plain, or atomic against plain), and
no barrier separates them: each thread's barrier epoch counts the barriers it has passed,
and lanes of one warp are also ordered by __syncwarp (their warp epoch).
"""
import numpy as np

NONE, MANY = -1, -2


class Shadow:
    def __init__(self, n):
        self.w_tid = np.full(n, NONE, np.int64)
        self.w_bar = np.zeros(n, np.int32)
        self.w_wep = np.zeros(n, np.int32)
        self.w_site = np.zeros(n, np.int32)
        self.w_atomic = np.zeros(n, bool)
        self.r_tid = np.full(n, NONE, np.int64)
        self.r_bar = np.zeros(n, np.int32)
        self.r_wep = np.zeros(n, np.int32)
        self.r_site = np.zeros(n, np.int32)


class RaceDetector:
    def __init__(self, engine, shared=True, global_=True):
        self.e = engine
        self.check_shared = shared
        self.check_global = global_
        self.global_shadows = {}
        self.shared_shadows = {}

    def on_wave(self, engine):
        self.shared_shadows = {}

    def on_barrier(self, engine, lanes):
        pass    # barrier epochs live in the engine (bar_epoch); nothing to clear

    def on_access(self, region, offsets, size, kind, L, site):
        e = self.e
        if region.kind == "shared":
            if not self.check_shared:
                return
            granule = e.prog.shared_access_size
        else:
            if not self.check_global:
                return
            granule = e.prog.global_access_size
        slots = e.ctx.lane_index(L)
        if len(slots) == 0:
            return
        g0 = offsets // granule
        for extra in range(max(1, size // granule)):
            self._check(region, g0 + extra, granule, kind, slots, site)

    def _shadow(self, region, granule):
        e = self.e
        if region.kind == "shared":
            sh = self.shared_shadows.get(region.id)
            if sh is None:
                sh = self.shared_shadows[region.id] = Shadow(e.nblk * max(1, region.nbytes // granule))
            return sh
        sh = self.global_shadows.get(region.id)
        if sh is None:
            sh = self.global_shadows[region.id] = Shadow(max(1, region.nbytes // granule))
        return sh

    def _check(self, region, gran, granule, kind, slots, site):
        e = self.e
        sh = self._shadow(region, granule)
        if region.kind == "shared":
            per_block = max(1, region.nbytes // granule)
            key = e.slot_block[slots].astype(np.int64) * per_block + gran
            tid = slots.astype(np.int64)
            same_block = lambda other: np.ones(len(tid), bool)   # noqa: E731 (one shadow per block)
        else:
            key = gran.astype(np.int64)
            tid = slots.astype(np.int64) + e.gslot_base
            spb = e.spb
            same_block = lambda other: (other // spb) == (tid // spb)   # noqa: E731
        bar = e.bar_epoch[slots]
        wep = e.warp_epoch[slots]
        warp = tid // 32

        def unordered(other_tid, other_bar, other_wep):
            same_warp = (other_tid // 32) == warp
            return (other_bar == bar) & ~(same_warp & (other_wep != wep))

        wt = sh.w_tid[key]
        is_write = kind != "read"
        atomic = kind == "atomic"
        w_conf = (wt >= 0) & (wt != tid) & same_block(wt) & unordered(wt, sh.w_bar[key], sh.w_wep[key])
        if atomic:
            w_conf &= ~sh.w_atomic[key]
        elif kind == "read":
            pass   # a plain read after an atomic write also races
        if w_conf.any():
            k = int(np.flatnonzero(w_conf)[0])
            hazard = "RAW" if kind == "read" else "WAW"
            self._report(hazard, region, gran[k], granule, int(wt[k]), int(sh.w_site[key[k]]),
                         "atomic" if sh.w_atomic[key[k]] else "write", int(tid[k]), site, kind)
        if is_write:
            rt = sh.r_tid[key]
            r_conf = (rt != NONE) & (rt != tid) & unordered(np.where(rt >= 0, rt, tid), sh.r_bar[key],
                                                             sh.r_wep[key])
            if region.kind == "global":
                r_conf &= (rt == MANY) | same_block(np.where(rt >= 0, rt, tid))
            # a reader that is this very thread is fine; MANY readers include another thread
            if r_conf.any():
                k = int(np.flatnonzero(r_conf)[0])
                other = int(rt[k]) if rt[k] >= 0 else -1
                self._report("WAR", region, gran[k], granule, other, int(sh.r_site[key[k]]), "read",
                             int(tid[k]), site, kind)
            # two lanes of this very instruction writing one location: scatter, then read back
            sh.w_tid[key] = tid
            if len(key) > 1 and not atomic:
                back = sh.w_tid[key]
                clash = back != tid
                if clash.any():
                    k = int(np.flatnonzero(clash)[0])
                    self._report("WAW", region, gran[k], granule, int(back[k]), site, "write", int(tid[k]),
                                 site, kind)
            sh.w_bar[key] = bar
            sh.w_wep[key] = wep
            sh.w_site[key] = site
            sh.w_atomic[key] = atomic
            if atomic:
                return
            return
        # read: remember the readers of this interval
        rt = sh.r_tid[key]
        stale = (rt == NONE) | (sh.r_bar[key] != bar)
        new = np.where(stale | (rt == tid), tid, MANY)
        sh.r_tid[key] = new
        sh.r_bar[key] = bar
        sh.r_wep[key] = wep
        sh.r_site[key] = site
        if len(key) > 1:
            # several lanes of this instruction read one location: read back to find them
            back = sh.r_tid[key]
            shared_read = back != new
            if shared_read.any():
                sh.r_tid[key[shared_read]] = MANY

    def _report(self, hazard, region, gran, granule, other_tid, other_site, other_kind, tid, site, kind):
        e = self.e
        elem = int(gran) * granule // max(1, region.dtype.itemsize)
        first = {"slot": other_tid, "site": other_site, "kind": other_kind,
                 "who": self._who(other_tid, region) if other_tid >= 0 else "another thread"}
        second = {"slot": tid, "site": site, "kind": kind, "who": self._who(tid, region)}
        e.report.race(hazard, region, elem, first, second)

    def _who(self, tid, region):
        e = self.e
        slot = tid if region.kind == "shared" else tid - e.gslot_base
        if 0 <= slot < e.S:
            return e.report.who(slot)
        return f"a thread of an earlier wave (#{tid})"
