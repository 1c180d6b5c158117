"""The random schedule's long look when memory moves, but only in words of one thread each.

The long look (warp_cycles.py) gives a verdict only while no value in memory changes: then each
warp reads memory nobody changes, and a warp that comes back to its own state repeats itself in
every order. A loop in which every thread also writes a word of its own (a heartbeat
`beat[t] = i` while it waits for a flag nobody sets, a counter of its own it increments) changes
memory at every iteration, so that look started again at every step and only the time limit
stopped the launch.

This watch widens the look's condition. While it is on, every access to global and shared
memory is seen (through the plugin hooks of memory.py) and every word (4 bytes) gets an owner:
the one thread that touched it since the watch began, or "several". A word is *moving* once a
write changed its bytes, or an atomic touched it (its effect is not known in advance; it counts
as a change). The look stays valid while no moving word has several threads touching it: then

* what a thread reads is either a word nobody changed in the watch, or a word of its own that
  only it reads and writes;
* so each thread's steps depend on its own state and its own words alone, whatever the order of
  the others (local memory is its own too, and is part of its state here);
* a warp whose state (its lanes' points and registers, their local memory, and the bytes of
  every moving word its threads own) is what it was at an earlier moment of the watch, with
  every lane of it that can run run in between, repeats those steps forever: the words its
  cycle reads that nobody changed stay unchanged, because every other warp repeats a cycle of
  its own that did not change them either.

When a moving word gets a second thread (a reader of another's heartbeat, a flag set by one and
read by another, an atomic counter several threads share) the watch is *broken*: the look
stops, and the watchdog waits a growing number of steps before it tries again (the hooks cost
time on every access while they are on). The comparison is exact: bytes, never a digest.
"""
import numpy as np

from .wave import WARP

WORD = 4            # bytes: the unit of ownership (two threads on two bytes of a word: "several")
NOBODY, SEVERAL = -1, -2


class OwnWords:
    """One watch of the accesses of a wave (install() to start it, remove() to end it)."""

    def __init__(self, memory, wave):
        self.memory = memory
        self.wave = wave
        self.owner = {}         # region id -> flat int64 array, one per word: NOBODY, SEVERAL or a slot
        self.moving = {}        # region id -> flat bool array, one per word
        self.of_warp = {}       # warp -> {region id: list of flat word indices it owns that moved}
        self.warp_cache = {}    # warp -> {region id: (rows, byte index array)} built from of_warp
        self.broken = False
        self.installed = False
        self._saved_reads = None

    # ---- hooks into memory (the plugins' lists: memory.py calls them before every access)
    def install(self):
        plugins = self.memory.plugins
        plugins.memory_access.append(self.on_memory_access)
        plugins.lane_access.append(self.on_lane_access)
        # a lone lane's run of reads told at once would pass by this watch: one by one while it is on
        self._saved_reads, plugins.lane_reads = plugins.lane_reads, None
        self.memory._lane_loads.clear()     # their plans keep the hooks of the moment they were made
        self.installed = True

    def remove(self):
        if not self.installed:
            return
        plugins = self.memory.plugins
        plugins.memory_access.remove(self.on_memory_access)
        plugins.lane_access.remove(self.on_lane_access)
        plugins.lane_reads = self._saved_reads
        self.memory._lane_loads.clear()
        self.installed = False

    def on_lane_access(self, region, offset, size, kind, lanes, slot, site):
        self.on_memory_access(region, np.array([offset], np.int64), size, kind,
                              np.array([slot], np.int64), site)

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        if self.broken or region.kind == "local" or not len(offsets):
            return
        slots = self.wave.lane_index(lanes).astype(np.int64, copy=False)
        nwords = -(-region.nbytes // WORD)
        rows = self.wave.slot_block[slots].astype(np.int64) if region.kind == "shared" else 0
        first = offsets // WORD
        span = int(((offsets + size - 1) // WORD - first).max()) + 1
        changed = self._changed(region, offsets, size, kind, rows)
        # one key per (lane, word it spans): a row's words follow each other in the flat arrays
        keys = np.concatenate([rows * nwords + first + k for k in range(span)])
        who, moved = np.tile(slots, span), np.tile(changed, span)
        owner, moving = self._arrays(region, nwords)
        # owners: nobody -> this thread; this thread stays; another -> several (two threads of one
        # access on one word: several as well)
        if len(keys) > 1:
            order = np.argsort(keys, kind="stable")
            k2, s2 = keys[order], who[order]
            clash = (k2[1:] == k2[:-1]) & (s2[1:] != s2[:-1])
        else:
            clash = None
        now = owner[keys]
        owner[keys] = np.where(now == NOBODY, who, np.where(now == who, now, SEVERAL))
        if clash is not None and clash.any():
            owner[k2[1:][clash]] = SEVERAL
        if moved.any():
            fresh = keys[moved & ~moving[keys]]
            moving[keys[moved]] = True
            for key in np.unique(fresh).tolist():
                slot = int(owner[key])
                if slot >= 0:
                    self.of_warp.setdefault(slot // WARP, {}).setdefault(region.id, []).append(key)
                    self.warp_cache.pop(slot // WARP, None)
        if (moving[keys] & (owner[keys] == SEVERAL)).any():
            self.broken = True

    def _arrays(self, region, nwords):
        owner = self.owner.get(region.id)
        if owner is None:
            rows = region.storage.shape[0] if region.kind == "shared" else 1
            owner = self.owner[region.id] = np.full(rows * nwords, NOBODY, np.int64)
            self.moving[region.id] = np.zeros(rows * nwords, bool)
        return owner, self.moving[region.id]

    def _changed(self, region, offsets, size, kind, rows):
        """Per lane: does this access change the bytes it touches? A plain write is compared with
        what it replaces (region.incoming, set while the hooks run); an atomic always counts."""
        n = len(offsets)
        if kind == "read":
            return np.zeros(n, bool)
        incoming = region.incoming
        if kind != "write" or incoming is None:
            return np.ones(n, bool)
        _, value, dtype = incoming
        view = self.memory.view(region, dtype)
        idx = offsets // dtype.itemsize
        old = view[idx] if region.kind == "global" else view[rows, idx]
        new = np.broadcast_to(np.asarray(value, dtype=dtype), (n,))
        old_bytes = np.ascontiguousarray(old).view(np.uint8).reshape(n, -1)
        new_bytes = np.ascontiguousarray(new).view(np.uint8).reshape(n, -1)
        return (old_bytes != new_bytes).any(axis=1)

    # ---- what a warp's state adds in this watch
    def warp_bytes(self, warp):
        """The exact bytes a warp's state adds while the watch is on: its lanes' local memory and
        the words its threads own that moved (which words, and their bytes now). Words start
        moving, never stop, so a state with a word more never equals one with fewer."""
        w = self.wave
        part = slice(warp * WARP, (warp + 1) * WARP)
        parts = []
        for region in self.memory.regions.values():
            if region.kind == "local" and region.storage is not None:
                parts.append(np.ascontiguousarray(region.storage[part]).tobytes())
                if region.init is not None:
                    parts.append(np.packbits(region.init[part]).tobytes())
        owned = self.of_warp.get(warp)
        if owned:
            cache = self.warp_cache.get(warp)
            if cache is None:
                cache = self.warp_cache[warp] = self._gather_plan(owned)
            for rid, (keys, rows, cols) in cache.items():
                storage = self.memory.regions[rid].storage
                parts.append(keys.tobytes())
                parts.append(np.ascontiguousarray(storage[cols] if rows is None else storage[rows, cols]).tobytes())
        return b"".join(parts)

    def _gather_plan(self, owned):
        plan = {}
        for rid in sorted(owned):
            region = self.memory.regions[rid]
            keys = np.array(sorted(owned[rid]), np.int64)
            nwords = -(-region.nbytes // WORD)
            cols = np.minimum((keys % nwords)[:, None] * WORD + np.arange(WORD), region.nbytes - 1)
            rows = (keys // nwords)[:, None] if region.kind == "shared" else None
            plan[rid] = (keys, rows, cols)
        return plan
