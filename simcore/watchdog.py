"""When does a launch that has not finished stop: the watchdog of the step loop.

A step count cannot tell a long legal kernel from an endless one (a one-block grid-stride loop
over 2^22 floats needs millions of steps), so by default nothing stops a kernel for being long:

* an endless loop is recognised by its state: the wave comes back to exactly the same state
  (every lane at the same point with the same registers, memory unchanged, the scheduler about
  to run the same lanes). From such a state the kernel can only repeat itself forever. Probes
  of a few hundred steps look for it, starting early and then at growing intervals, so a
  `while (flag == 0);` nobody releases faults within a second or two;
* a loop whose values keep changing forever (`for (;;) i++;`) never repeats a state: it is
  stopped by the time limit (`time_limit=`, seconds; 60 by default), with a message that says
  the kernel may just be long, and after a few seconds a one-line progress note on stderr shows
  that the simulator is working;
* `max_steps=` (steps per wave) keeps its meaning when given.
"""
import hashlib
import sys
import time
import weakref

import numpy as np

from .context import RUN, WARP

DEFAULT_TIME_LIMIT = 60.0   # seconds of simulation before a launch is stopped (time_limit=)
PROGRESS_AFTER = 5.0        # seconds before the first progress note, then every PROGRESS_EVERY
PROGRESS_EVERY = 15.0
CLOCK_EVERY = 256           # steps between two looks at the clock
FIRST_PROBE = 1024          # step of the wave at which the first probe starts


class Watchdog:
    def __init__(self, engine, kernel_name, started, time_limit, progress=None):
        # a proxy: the engine owns its watchdog, and a launch must leave no reference cycle
        self.engine = weakref.proxy(engine)
        self.kernel = kernel_name
        self.started = started                  # time.monotonic() at the launch's start
        self.time_limit = time_limit
        self.progress = sys.stderr if progress is None else progress
        self.next_note = started + PROGRESS_AFTER
        self.clock_every = CLOCK_EVERY          # fewer steps between looks when steps are slow
        self.last_look = (started, 0)
        self.noted = False

    # ------------------------------------------------------------------ per wave
    def start_wave(self, w, max_steps):
        """-> the first step (launch-wide count) at which tick() must be called."""
        self.w = w
        self.max_steps = max_steps
        self.limit = w.steps + max_steps if max_steps else None
        self.probe_end = None
        self.wave_start = w.steps
        self.next_probe = w.steps + FIRST_PROBE
        self.next_probe_time = 0.0
        # lanes of a cycle: round-robin runs every warp in turn, so a cycle is up to a few steps
        # per warp; lockstep runs them together
        per_cycle = 32 + (0 if self.engine.schedule == "lockstep" else 8 * w.nwarps)
        self.probe_len = 3 * per_cycle
        return self._next()

    def _next(self):
        s = self.w.steps
        if self.limit is not None:
            return self.limit + 1
        if self.probe_end is not None:
            return s + 1
        if self.next_probe <= s:
            # the probe is due but waits for its time (next_probe_time): the next look at the
            # clock starts it, rather than a call at every step until then
            return s + self.clock_every
        return min(s + self.clock_every, self.next_probe)

    def tick(self, pc, L):
        """Called before step number w.steps runs (pc, lanes L). Raises the fault that stops the
        launch, or returns the step at which to be called again."""
        w = self.w
        if self.limit is not None:
            if w.steps > self.limit:
                self.engine.report.step_limit(pc, L, self.max_steps)
            return self._next()
        if self.probe_end is None and w.steps >= self.next_probe and time.monotonic() >= self.next_probe_time:
            self._start_probe()
        if self.probe_end is not None:
            self._probe(pc, L)
        if self.probe_end is None or w.steps % self.clock_every == 0:
            self._clock(pc, L)
        return self._next()

    # ------------------------------------------------------------------ time
    def _clock(self, pc, L):
        now = time.monotonic()
        elapsed = now - self.started
        t0, s0 = self.last_look
        if now > t0 and self.w.steps > s0:
            # look about 10 times a second
            per_step = (now - t0) / (self.w.steps - s0)
            self.clock_every = max(1, min(CLOCK_EVERY, int(0.1 / per_step)))
        self.last_look = (now, self.w.steps)
        if self.time_limit and elapsed > self.time_limit:
            self.engine.report.time_limit(pc, L, self.time_limit, self.w.steps)
        if now >= self.next_note and self.progress is not None:
            self.next_note = now + PROGRESS_EVERY
            e = self.engine
            first, last = self.w.first_block, self.w.first_block + self.w.nblk - 1
            waves = (f"block {first}" if first == last else f"blocks {first}-{last}") + f" of {e.launch.num_blocks}"
            limit = f"; stops at {self.time_limit:.0f} s (time_limit=)" if self.time_limit else ""
            print(f"simcore: {self.kernel} still running after {elapsed:.0f} s: {self.w.steps:,} steps, "
                  f"{waves}{limit}", file=self.progress, flush=True)

    # ------------------------------------------------------------------ repeated states
    def _start_probe(self):
        w = self.w
        self.probe_end = w.steps + self.probe_len
        self.probe_started = time.monotonic()
        if self.engine.schedule == "random":
            # the scheduler's choice is not part of the state: look at each warp on its own
            self.mem0 = self._memory_state()
            self.waiting = self._runnable_warps()     # warps whose state has not come back yet
            self.warp_seen = {}
        else:
            self.seen = {}

    def _end_probe(self):
        w = self.w
        self.probe_end = None
        now = time.monotonic()
        # probes cost at most ~1/10 of the time: a long kernel is slowed down little
        self.next_probe_time = now + 9 * (now - self.probe_started)
        self.next_probe = w.steps + max(FIRST_PROBE, (w.steps - self.wave_start) // 4)

    def _probe(self, pc, L):
        w = self.w
        lanes = np.arange(w.S)[L]
        if self.engine.schedule == "random":
            self._probe_warps(pc, L, int(lanes[0]) // WARP)
        else:
            self._probe_wave(pc, L, lanes)
        if self.probe_end is not None and w.steps >= self.probe_end:
            self._end_probe()

    def _probe_wave(self, pc, L, lanes):
        """A deterministic schedule: the whole state (lanes, registers, scheduler, memory) seen
        twice means the kernel repeats forever. Memory is hashed only from a lane state's second
        sighting on, so a sighting needs three: the loop's period is found cheaply."""
        w = self.w
        key = self._lane_state(pc, lanes)
        earlier = self.seen.get(key)
        if earlier is None:
            self.seen[key] = (w.steps, None)
            return
        mem = self._memory_state()
        if earlier[1] == mem:
            self.engine.report.endless_loop(pc, L, w.steps - earlier[0])
        self.seen[key] = (w.steps, mem)

    def _probe_warps(self, pc, L, warp):
        """The random schedule: when every warp that could run has, since the probe started,
        come back to a state of its own it was in before (its lanes' points and registers), and
        memory is what it was when the probe started, no warp makes progress in any order:
        each one only reads memory nobody changes for good, and repeats itself."""
        w = self.w
        base = warp * WARP
        key = self._lane_state(pc, slice(base, base + WARP), whole=False)
        seen = self.warp_seen.setdefault(warp, set())
        if key in seen:
            self.waiting.discard(warp)
        seen.add(key)
        if not self.waiting:
            if self._memory_state() == self.mem0:
                self.engine.report.endless_loop(pc, L, w.steps - (self.probe_end - self.probe_len))
            self._end_probe()

    def _runnable_warps(self):
        w = self.w
        return set(np.flatnonzero((w.st == RUN).reshape(w.nwarps, WARP).any(axis=1)).tolist())

    def _lane_state(self, pc, lanes, whole=True):
        """A digest of the lanes' program state: the whole wave's (whole=True, with the lanes about
        to run and the scheduler's position) or one warp's (lanes: its slice)."""
        w, e = self.w, self.engine
        h = hashlib.blake2b(digest_size=16)
        part = slice(None) if whole else lanes
        for a in (w.pc, w.st, w.site, w.jstack, w.jdepth, w.top):
            h.update(np.ascontiguousarray(a[part]).data)
        for name in sorted(w.R):
            h.update(np.ascontiguousarray(w.R[name][part]).data)
        if whole:
            for a in (w.named.arrived, w.named.count, lanes):
                h.update(np.ascontiguousarray(a).data)
            h.update(repr((pc, e._adv_warp, e._rr_warp)).encode())
        return h.digest()

    def _memory_state(self):
        h = hashlib.blake2b(digest_size=16)
        for rid in sorted(self.engine.memory.regions):
            storage = self.engine.memory.regions[rid].storage
            if storage is not None:
                h.update(np.ascontiguousarray(storage).data)
        return h.digest()
