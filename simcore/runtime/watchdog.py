"""When does a launch that has not finished stop: the watchdog of the step loop.

Every verdict comes from simulated state and a budget of simulated steps, never from the
clock (docs/semantics.md, forward progress):

* an endless loop is recognised by its state: the wave comes back to exactly the same state
  (every lane at the same point with the same registers and reconvergence stacks, the same
  lanes waiting at the same barriers, the same open named-barrier phases, reconvergence points
  given up and __activemask() splits, memory unchanged with the same shared bytes written, the
  scheduler about to run the same lanes, the same lanes yielding), and every lane that could run
  ran in between. From such a state the kernel can repeat itself forever under a fair schedule.
  Probes look for it at steps fixed by the step count alone: the first at step 1,024 of a wave,
  each one twice as long as the one before (cycles of any length are found: Brent's method, one
  checkpoint at powers of two) and the next one a probe length later (half of the steps are
  probed: a probe step costs little more than a step; a cycle of C steps is found by the first
  probe 2-4 C long, some 4-16 C steps after the loop starts);
* memory that moved: from the first probe of a wave on, memory counts the writes that change a
  value (Memory.changes). A cycle in which memory took another value and came back (a flag set
  and set back while another warp spins on it) says nothing about other orders, in which a
  waiter sees that value: the random schedule's looks and the lanes' turns across yields count
  a repeat only if no value changed since its earlier moment; lanes such a cycle starved get
  their turn at another phase of the cycle each time. A deterministic schedule's exact repeat
  with every lane run still repeats forever; its report then says memory moved in the cycle;
* round-robin interleaves every warp, so its whole state's cycle grows with the warps: its
  probes grow longer (MAX_PROBE times a quarter of the warps), and from ROUND_PROBE on they follow
  each other and also compare the state at each round's start with every earlier round's, which
  finds a cycle about one cycle after that watch begins;
* the random schedule cannot repeat the wave's whole state often enough to be seen: there each
  warp that runs must come back to a state of its own, every one of its runnable lanes having
  run, while memory takes no other value and no barrier completes (lanes of different warps did
  not meet); and at the moments barriers complete the whole state is compared as above (there
  memory may have moved where only barriers handed values over: _every_order_repeats). That
  per-probe look compares digests, so it only makes lanes fair: an endless verdict there comes
  from the long look (warp_cycles.py: one exact checkpoint per warp across probes, Brent's
  method in the warp's own steps, while memory, barriers and turns stand still), or from the
  closure look (order_closure.py: a small set of states, exact bytes, that every step of any
  order leads back into; ping-pong, where memory moves at every hand-off);
* memory that moves only in words of one thread each (a heartbeat written while waiting for a
  flag nobody sets): once a probe saw every warp come back to a state of its own while memory
  moved, the own-words watch (own_words.py) records which thread touches each word; while no
  word that changed has two threads, the long look goes on with each warp's own words in its
  state, and every order repeats what it finds;
* under a deterministic schedule a ping-pong starves each side in turn: the whole state at the
  moments lanes get their turn (lanes, memory byte for byte, who yields, the watchdog's own
  turns) seen again with every lane run in between repeats forever (_fair_cycle);
* a kernel that reads the clock gets no verdict from a repeat: the clock is not part of the
  state, and a loop that waits for it comes back to the same registers while it moves on;
* when the state repeats but some lane that can run did not run in the cycle (a lock holder
  starved by its spinning warp-mates under lockstep, a lane waiting at a reconvergence point
  for warp-mates that spin on its flag), that is the schedule's unfairness, not the kernel's:
  the cycle's lanes yield (Engine.yield_lanes) and lanes waiting to reconverge go on without
  their warp-mates (independent thread scheduling; under model="stack" they keep waiting, as
  pre-Volta hardware does, and the report names the model);
* a loop whose values keep changing forever (`for (;;) i++;`) never repeats a state: the time
  limit (`time_limit=`, CPU seconds of the whole launch; 60 by default) protects the caller, with a
  message that says the time limit was reached and how far the kernel got, never that the
  code is wrong; after a few seconds a one-line progress note on stderr shows that the
  simulator is working;
* `max_steps=` (steps per wave) keeps its meaning when given.
"""
import hashlib
import os
import sys
import time
import weakref

import numpy as np

from .order_closure import MAX_MEMORY_BYTES, OrderClosure, warp_choices
from .own_words import OwnWords
from .warp_cycles import WarpCycleLook, warp_state_bytes
from .wave import JOIN, PARK, RUN, WARP
from ..errors import LaunchError

DEFAULT_TIME_LIMIT = 60.0   # seconds of simulation before a launch is stopped (time_limit=)


def launch_clock():
    """The clock of the time limit: this process's CPU time, not the wall clock, so a launch
    on a loaded machine (a class graded in parallel, a busy CI box) is not stopped sooner."""
    return time.process_time()
TIME_LIMIT_VARIABLE = "SIMCORE_TIME_LIMIT"   # the environment's default, for slow or shared machines


def default_time_limit():
    """The time limit of a launch that passes no time_limit=: $SIMCORE_TIME_LIMIT seconds when
    set (a grader on a slow shared machine, a test suite on a loaded CI box raise it; 0: none),
    else DEFAULT_TIME_LIMIT. Only when a run stops changes with it, never a verdict."""
    text = os.environ.get(TIME_LIMIT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_TIME_LIMIT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds != seconds or seconds == float("inf"):
        raise LaunchError(f"the environment variable {TIME_LIMIT_VARIABLE}={text!r} must be a number of "
                          "seconds (0: no time limit)")
    return seconds
PROGRESS_AFTER = 5.0        # seconds before the first progress note, then every PROGRESS_EVERY
PROGRESS_EVERY = 15.0
CLOCK_EVERY = 256           # steps between two looks at the clock
FIRST_PROBE = 1024          # step of the wave at which the first probe starts
PROBE_GAP = 1               # steps between two probes, in lengths of the probe that ended
STARVE_STEPS = 1 << 15      # a lane that can run but stands still this long gets its turn (fairness)
MAX_PROBE = 1 << 17         # the longest probe (steps): cycles up to about half of it are found
ROUND_PROBE = 1 << 14       # round-robin: probes this long or longer also compare rounds' starts
MAX_ROUNDS = 1 << 17        # rounds' states kept at most (then the watch starts again)
MAX_BARRIER_STATES = 1 << 16   # random: states at barriers' completions kept across probes at most
MAX_FAIR_MOMENTS = 64       # deterministic schedules: moments of turns kept (_fair_cycle)
EXACT_MEMORY_BYTES = 1 << 18    # _fair_cycle compares memory byte for byte up to this size (else no look)
LOOK_EVERY_STEP = 1 << 13   # random: steps of quiet memory after which the long look sees every step
OWN_WORDS_STEPS = 1 << 18   # random: the own-words watch's first try (steps) and first pause; each try doubles both


def first_probe_length(schedule, nwarps):
    """The length (steps) of a wave's first probe: a few cycles of a loop. Round-robin runs
    every warp in turn, so a cycle is up to a few steps per warp; lockstep runs them together."""
    per_cycle = 32 + (0 if schedule == "lockstep" else 8 * nwarps)
    return max(256, 3 * per_cycle)


def quiet_steps_of(schedule, nwarps):
    """How many steps a wave of `nwarps` warps runs before the watchdog could change anything:
    up to the start of its second probe, the probes only compare whole states (and at that
    start lanes that stood still may take their turn). A launch that ends within them was run
    exactly as a schedule without probes runs it (warp_batches.py)."""
    return FIRST_PROBE + (1 + PROBE_GAP) * first_probe_length(schedule, nwarps) - 1


CLOCK_CALLS = ("clock64", "clock32", "nanosleep")    # context calls whose values come from the step count


def uses_context(prog, calls):
    """Might a block of the kernel make one of these context calls (unknown facts: yes)?"""
    return any(b.facts is None or any(c in b.facts.context for c in calls) for b in prog.blocks)


class Watchdog:
    def __init__(self, engine, kernel_name, started, time_limit, progress=None):
        # a proxy: the engine owns its watchdog, and a launch must leave no reference cycle
        self.engine = weakref.proxy(engine)
        self.kernel = kernel_name
        self.started = started                  # launch_clock() at the launch's start
        self.time_limit = time_limit
        self.progress = sys.stderr if progress is None else progress
        self.next_note = started + PROGRESS_AFTER
        self.clock_every = CLOCK_EVERY          # fewer steps between looks when steps are slow
        self.last_look = (started, 0)
        self.noted = False
        self.blocks_done = 0                    # blocks of earlier waves, finished (reports)

    # ------------------------------------------------------------------ per wave
    def start_wave(self, w, max_steps):
        """-> the first step (launch-wide count) at which tick() must be called."""
        if getattr(self, "w", None) is not None:
            self.blocks_done += self.w.nblk
        self.w = w
        self.max_steps = max_steps
        self.limit = w.steps + max_steps if max_steps else None
        self.probe_end = None
        self.wave_start = w.steps
        self.next_probe = w.steps + FIRST_PROBE
        self.probe_len = self.first_probe_len = first_probe_length(self.engine.schedule, w.nwarps)
        self.max_probe = self._longest_probe(w)
        self.engine.memory.changes = None       # memory's write watch: on from the first probe
        self.last_ran = np.full(w.S, -1, np.int64)     # per slot: the last probed step that ran it
        self.turns = None       # (memory, lanes that had their turn in it) while lanes yield
        self.idle = None        # (step, states, points, registers): what lanes that may starve were
        self.rounds = None      # round-robin: state at a round's start -> (step, memory's change count)
        self.last_warp = -1     # the warp of the last step the round watch saw
        self.pending = None     # (cycle's lanes, lanes to rejoin, step): a turn to give at that step
        self.tries = 0          # turns given from cycles whose memory moved (each at another phase)
        self.turns_given = 0    # times the watchdog gave lanes a turn (_be_fair): looks start again
        self.warp_look = None   # random: the long per-warp look while memory stands still (warp_cycles.py)
        self._end_own_words()
        self.own_words = None   # random: the watch of words one thread each (own_words.py), while on
        self.own_look = None    # the long look on the watch's terms (warp_cycles.py), while it is on
        self.own_ran = np.full(w.S, -1, np.int64)      # per slot: the last step that look saw run it
        self.own_words_next = 0     # the step from which the own-words watch may start (again)
        self.own_words_steps = OWN_WORDS_STEPS    # the length of its next try
        self.look_ran = np.full(w.S, -1, np.int64)     # per slot: the last step the long look saw run it
        self.due = 0            # the step at which tick() has work besides the long look (_next)
        self.fair_moments = {}  # deterministic schedules: digest -> (step, exact state, changes) (_fair_cycle)
        self.pcs_seen = {}      # block -> the last probed step that ran it, in the whole wave
        self.closure = None     # random: the look for a closed set of states (order_closure.py)
        self.closure_fits = None    # is memory small enough for it (known at its first use)
        self.reads_clock = None     # does the kernel read the clock (no long look then)
        self.order_free_kernel = None   # can nothing it reads depend on the order (_every_order_repeats)
        self.sync_seen = {}         # random: digest of the state at a barrier's completion -> (step, changes, atomics)
        return self._next()

    def _longest_probe(self, w):
        """Round-robin (and adversarial, after yields) interleave every warp's steps: a cycle of
        the wave's whole state is a cycle of each warp times the number of warps, so the longest
        probe grows with the warps (one step of a probe costs little more than a step). Under
        random, the per-warp look keeps a state per probed step: there it stays MAX_PROBE."""
        if self.engine.schedule in ("round_robin", "adversarial"):
            return MAX_PROBE * max(1, -(-w.nwarps // 4))
        return MAX_PROBE

    def _next(self):
        """-> the step of the next tick(): the next one due (self.due), or the next step while the
        long look watches between probes."""
        self.due = self._due()
        return self._between_probes()

    def _due(self):
        s = self.w.steps
        if self.limit is not None:
            return self.limit + 1
        if self.probe_end is not None:
            return s + 1
        if self.pending is not None:
            return max(s + 1, min(s + self.clock_every, self.next_probe, self.pending[2]))
        return min(s + self.clock_every, self.next_probe)

    def _between_probes(self):
        """The random schedule's looks see the steps between probes too: the long look once it
        has been quiet LOOK_EVERY_STEP steps (a warp's cycle longer than a probe's share is then
        seen whole), the closure look while it applies (it needs consecutive steps). They only
        watch there: nothing else tick() does happens before self.due."""
        s = self.w.steps
        if self.due > s + 1 and (self._long_look_watches() or self._own_look_watches()
                                 or self.closure is not None):
            return s + 1
        return self.due

    def _long_look_watches(self):
        look = self.warp_look
        return look is not None and self.w.steps - look.start >= LOOK_EVERY_STEP \
            and look.stamp[0] == self.engine.memory.changes

    def _own_look_watches(self):
        look, own = self.own_look, self.own_words
        return look is not None and own is not None and not own.broken and look.stamp[0] is own \
            and self.w.steps - look.start >= LOOK_EVERY_STEP

    def _own_words_over(self):
        """A watch that broke (a moving word shared by two threads) or ran its try's steps without
        a verdict ends; the next one may start only as many steps later, and may last twice as
        long (its hooks cost time on every access while it is on)."""
        own = self.own_words
        if own is not None and (own.broken or self.w.steps - self.own_words_start >= self.own_words_steps):
            self._end_own_words()
            self.own_words_next = self.w.steps + self.own_words_steps
            self.own_words_steps *= 2

    def _start_own_words(self):
        self.own_words = OwnWords(self.engine.memory, self.w)
        self.own_words.install()
        self.own_words_start = self.w.steps
        self.own_look = None        # its look starts with it (the long look goes on as it was)

    def _end_own_words(self):
        own = getattr(self, "own_words", None)
        if own is not None:
            own.remove()
            self.own_words = None

    def end_launch(self):
        """The launch ended (normally or by a fault): the watch's hooks leave memory."""
        self._end_own_words()

    def tick(self, pc, L):
        """Called before step number w.steps runs (pc, lanes L). Raises the fault that stops the
        launch, or returns the step at which to be called again."""
        w = self.w
        if w.steps < self.due:
            # a step between probes, seen by the random schedule's looks only (_between_probes)
            lanes = np.arange(w.S)[L]
            if self._long_look_watches():
                self._look_across_probes(pc, L, int(lanes[0]) // WARP)
            elif self._own_look_watches():
                self._own_look_between_probes(pc, L, int(lanes[0]) // WARP)
            if self.closure is not None:
                self._look_for_closure(pc, lanes)
            return self._between_probes()
        if self.limit is not None:
            if w.steps > self.limit:
                self.engine.report.step_limit(pc, L, self.max_steps)
            return self._next()
        if self.pending is not None and w.steps >= self.pending[2]:
            self._give_pending_turn()
        if self.probe_end is None and w.steps >= self.next_probe:
            self._start_probe()
        if self.probe_end is not None:
            self._probe(pc, L)
        if self.probe_end is None or w.steps % self.clock_every == 0:
            self._clock(pc, L)
        return self._next()

    # ------------------------------------------------------------------ time
    def _clock(self, pc, L):
        """The clock protects the caller only: it stops a launch at its time limit, it decides
        nothing about the kernel (when to look again is all it changes)."""
        now = launch_clock()
        elapsed = now - self.started
        t0, s0 = self.last_look
        if now > t0 and self.w.steps > s0:
            # look about 10 times a second
            per_step = (now - t0) / (self.w.steps - s0)
            self.clock_every = max(1, min(CLOCK_EVERY, int(0.1 / per_step)))
        self.last_look = (now, self.w.steps)
        if self.time_limit and elapsed > self.time_limit:
            self.engine.report.time_limit(pc, L, self.time_limit, self.how_far())
        if now >= self.next_note and self.progress is not None:
            self.next_note = now + PROGRESS_EVERY
            limit = f"; stops at {self.time_limit:.0f} s (time_limit=)" if self.time_limit else ""
            print(f"simcore: {self.kernel} still running after {elapsed:.0f} s: {self.how_far()}{limit}",
                  file=self.progress, flush=True)

    def how_far(self):
        """How far the launch got: steps, thread-instructions, blocks finished and running."""
        e, w = self.engine, self.w
        first, last = w.first_block, w.first_block + w.nblk - 1
        live = w.live_per_block()
        finished = self.blocks_done + int((live == 0).sum())
        running = (f"block {first}" if first == last else f"blocks {first}-{last}")
        return (f"{w.steps:,} steps, {e.thread_instructions:,} thread-instructions, {finished} of "
                f"{e.launch.num_blocks} blocks finished, {running} running")

    # ------------------------------------------------------------------ repeated states
    def _start_probe(self):
        w = self.w
        self._starvation()
        if self.probe_end is None and self.next_probe > w.steps:
            return      # lanes that starved got their turn: the next step starts the probe
        self.probe_end = w.steps + self.probe_len
        memory = self.engine.memory
        if memory.changes is None:
            memory.changes = 0
        self.checkpoint = None
        self.checkpoint_step = w.steps
        self.checkpoint_span = 1
        self.sync0 = w.sync_events
        self.ran_pcs = {}       # block -> the last probed step that ran it (the loop to name)
        if len(self.sync_seen) >= MAX_BARRIER_STATES or not (
                self.engine.schedule == "random" and self._every_order_repeats(memory.atomics)):
            # (where every order repeats a barrier's state, the states seen at barriers are kept
            # across probes: a cycle longer than a probe is found too)
            self.sync_seen = {}
        # round-robin's long probes also compare the state at each round's start (below)
        if not self._watches_rounds():
            self.rounds = None
        elif self.rounds is None or len(self.rounds) > MAX_ROUNDS or self.next_probe != w.steps - 1:
            self.rounds = {}        # (else the watch goes on from the probe just ended)
            self.last_warp = -1
        if self.engine.schedule == "random":
            # the scheduler's choice is not part of the state: look at each warp on its own
            self.mem0 = self._memory_state()
            self.changes0 = memory.changes           # memory must take no other value till the end
            self.waiting = self._runnable_warps()     # warps whose state has not come back yet
            self.warp_seen = {}

    def _end_probe(self):
        w = self.w
        self.probe_end = None
        # (probes that watch rounds follow each other without a gap: a long cycle is then found
        # about one cycle after the watch begins, whatever the number of warps)
        self.next_probe = w.steps + (0 if self.rounds is not None else PROBE_GAP * self.probe_len)
        self.probe_len = min(self.max_probe, 2 * self.probe_len)

    def _watches_rounds(self):
        """Round-robin, once probes are ROUND_PROBE long: its whole state's cycle is a warp's
        cycle times the warps, so the state at the start of each round (every warp's turn once) is
        compared with every one seen since the watch began (probes then follow each other)."""
        return self.engine.schedule == "round_robin" and self.probe_len >= ROUND_PROBE

    def _probe_rounds(self, pc, L):
        """A round starts when round-robin comes back to a lower warp: the whole state there (the
        lanes, the scheduler's position, who yields), seen at an earlier round's start while memory
        took no other value (its change count is the same), with every lane that can run run
        since, repeats forever."""
        w = self.w
        warp = (L.start if isinstance(L, slice) else int(L[0])) // WARP
        last, self.last_warp = self.last_warp, warp
        if warp > last:
            return
        yielded = self.engine.yielded
        key = self._lane_state(pc, L, whole=True) + (b"" if yielded is None else np.packbits(yielded).tobytes())
        memory = self.engine.memory
        first = self.rounds.get(key)
        if first is None or first[1] != memory.changes:
            self.rounds[key] = (w.steps, memory.changes, memory.atomics)
            return
        self._repeated(pc, L, first[0], first[1], since_atomics=first[2])

    def _probe(self, pc, L):
        w = self.w
        if self.engine.schedule == "random":
            lanes = np.arange(w.S)[L]
            self._probe_warps(pc, L, int(lanes[0]) // WARP)
            if self.probe_end is not None:
                self._look_for_closure(pc, lanes)
        else:
            self._probe_wave(pc, L)
            if self.probe_end is not None and self.rounds is not None:
                self._probe_rounds(pc, L)
        if self.probe_end is not None:
            self.last_ran[L] = w.steps
            self.ran_pcs[pc] = w.steps
            self.pcs_seen[pc] = w.steps
            if w.steps >= self.probe_end:
                self._end_probe()

    # ------------------------------------------------------------------ the serial loop's probe steps
    def serial_window(self, slot, names, steps):
        """The bulk interface of a probe, for the generated serial loop (runtime/solo.py), which
        runs the lone lane `slot` (lockstep) without calling tick() at every step; `steps`: the
        last step run, which tick() saw. -> None outside a lockstep probe (then tick() says when
        to call again), else (last, point, saved, ran): the steps after `steps` up to `last` need
        no tick() but one: a step that
        runs block `point` while the lane's registers `names` (keys of wave.R) may be `saved`
        (the checkpoint's values, in that order). Why that suffices: at any other such step
        _probe_wave neither compares (the state's program point, or the lane's registers, differ
        from the checkpoint's) nor moves the checkpoint (a step count, before `last`), the probe
        does not end and the clock is not due (also step counts); what is left is the probe's
        bookkeeping, which the serial loop does itself: the step of every block it runs goes into
        `ran` (ran_pcs), and serial_ran() records the lane's last step.

        point is -1 when no step of the lone lane can match the checkpoint's scheduler state
        (the checkpoint's lanes are not this lane alone)."""
        w = self.w
        if self.probe_end is None or self.limit is not None or self.checkpoint is None \
                or self.engine.schedule == "random":
            return None
        s = steps
        last = min(self.probe_end - 1, self.checkpoint_step + self.checkpoint_span - 1,
                   (s // self.clock_every + 1) * self.clock_every - 1)
        if self.pending is not None:
            last = min(last, self.pending[2] - 1)      # tick() gives a starved lane its turn there
        small, saved_arrays = self.checkpoint
        point = small[0] if small[1] == (slot, slot + 1) else -1
        key = (id(saved_arrays), slot, names)
        cached = getattr(self, "_serial_saved", None)
        if cached is None or cached[0] != key:
            first = len(saved_arrays) - len(w.R)        # the registers come after the lane states
            order = {name: first + i for i, name in enumerate(sorted(w.R))}
            try:
                values = tuple(saved_arrays[order[name]][slot] for name in names)
            except (KeyError, IndexError):
                return None
            cached = self._serial_saved = (key, values, saved_arrays)    # (the arrays keep the id valid)
        return last, point, cached[1], self.ran_pcs

    def serial_ran(self, slot, last):
        """The serial loop ran the lone lane `slot` through probe steps up to step `last`
        (serial_window): the per-step record of who ran last (the blocks are in ran_pcs)."""
        self.last_ran[slot] = last

    def _probe_wave(self, pc, L):
        """A deterministic schedule: the whole state (lanes, registers, scheduler, memory) seen
        twice means the kernel repeats forever (when every lane that could run ran). Brent's
        method: the state is compared with one checkpoint, moved at powers of two steps, so a
        cycle of any length up to half the probe is found; memory is hashed only when the rest
        is equal."""
        w = self.w
        small = None
        # the program point is the scheduler state's first item: at any other point the state
        # differs, and the rest need not be built (most probed steps)
        if self.checkpoint is not None and pc == self.checkpoint[0][0]:
            small = self._scheduler_state(pc, L)
            if small == self.checkpoint[0] and self._same_arrays(L):
                if self._memory_state() == self.checkpoint_memory:
                    self._repeated(pc, L, self.checkpoint_step, self.checkpoint_changes,
                                   since_atomics=self.checkpoint_atomics)
                    return
        if self.checkpoint is None or w.steps - self.checkpoint_step >= self.checkpoint_span:
            if small is None:
                small = self._scheduler_state(pc, L)
            if self.checkpoint is not None:
                self.checkpoint_span *= 2
            self.checkpoint = (small, [a.copy() for a in self._arrays()])
            self.checkpoint_step = w.steps
            self.checkpoint_memory = self._memory_state()
            self.checkpoint_changes = self.engine.memory.changes
            self.checkpoint_atomics = self.engine.memory.atomics

    def _probe_warps(self, pc, L, warp):
        """The random schedule: when every warp that could run has, since the probe started,
        come back to a state of its own it was in before (its lanes' points and registers) with
        each of its runnable lanes run in between, no barrier completed and memory is what it was
        when the probe started, no warp makes progress in any order: each one only reads memory
        nobody changes for good, and repeats itself."""
        w = self.w
        if w.sync_events != self.sync0:
            self._at_barrier(pc, L)
            return
        base = warp * WARP
        state = self._look_across_probes(pc, L, warp)
        if state is None:
            return
        key = hashlib.blake2b(state, digest_size=16).digest()
        seen = self.warp_seen.setdefault(warp, {})
        first = seen.get(key)
        if first is None:
            seen[key] = w.steps
        else:
            part = slice(base, base + WARP)
            if not ((w.st[part] == RUN) & (self.last_ran[part] < first)).any():
                self.waiting.discard(warp)
        if not self.waiting:
            # memory that changed and changed back could have let some warp out in another
            # order (a flag set and reset while another warp spins on it): no repeat then
            if self.engine.memory.changes == self.changes0 and self._memory_state() == self.mem0:
                # (a digest's match: an endless verdict needs the long look's exact one)
                self._repeated(pc, L, self.checkpoint_step, self.changes0, exact=False)
            elif self.own_words is None and w.steps >= self.own_words_next:
                # every warp came back to a state of its own while memory moved: perhaps only in
                # words of one thread each (a heartbeat), which the own-words watch can tell
                self._start_own_words()
            if self.probe_end is not None:
                self._end_probe()

    def _look_across_probes(self, pc, L, warp):
        """The random schedule's long look (warp_cycles.py) at a step of warp `warp`: it goes on
        across probes while memory, the barriers and the watchdog's turns stand still, and
        compares exact states. It gives a verdict only where _repeated would change nothing else
        (no lane waits to reconverge under the independent model, and lanes wait at most at block
        barriers that a thread of theirs, one of the loopers, has not reached: Sync.none_can_complete),
        so the schedule of every launch is what it was without it. Lanes waiting at such a barrier
        are part of the state compared and can do nothing until the loopers arrive: a spinner
        whose flag nobody sets, beside its block's threads at the __syncthreads() after the spin,
        is endless. -> the warp's state bytes, or None when the launch has been judged."""
        w, e = self.w, self.engine
        state = warp_state_bytes(w, warp)
        if self._reads_clock():
            return state
        if not self._observe(pc, L, warp, state):
            return None
        self._own_words_over()
        if self.own_words is not None and not self._observe(pc, L, warp, state, own=True):
            return None
        return state

    def _observe(self, pc, L, warp, state, own=False):
        """One look's step (the long look, or with `own` the own-words look, which sees the same
        steps besides it: the long look's verdicts and steps are what they were without it).
        -> False when the launch has been judged."""
        w, e = self.w, self.engine
        if own:
            stamp = (self.own_words, w.sync_events, self.turns_given)
            look, ran = self.own_look, self.own_ran
            state = state + self.own_words.warp_bytes(warp)
        else:
            stamp = (e.memory.changes, w.sync_events, self.turns_given)
            look, ran = self.warp_look, self.look_ran
        if look is None or look.stamp != stamp:
            look = WarpCycleLook(stamp, w.steps)
            look.wave_sets = self._wave_sets()
            if own:
                self.own_look = look
            else:
                self.warp_look = look
        came_back = look.observe(w, warp, state, ran)
        ran[L] = w.steps
        look.pcs[pc] = w.steps
        if came_back and look.every_warp_came_back(self._runnable_warps()) \
                and e.sync.none_can_complete(w) and (e.model == "stack" or not (w.st == JOIN).any()) \
                and self._wave_sets() == look.wave_sets:
            since = look.since()
            if own:
                # memory moved, only in words of one thread each: every order repeats this
                self._repeated(pc, L, since, e.memory.changes, seen=(ran >= since, look.pcs), own_words=True)
            else:
                self._repeated(pc, L, since, stamp[0], seen=(ran >= since, look.pcs))
            return False
        return True

    def _own_look_between_probes(self, pc, L, warp):
        """A step between probes that only the own-words look watches (the long look does not)."""
        if self._reads_clock():
            return
        self._own_words_over()
        if self.own_words is not None:
            self._observe(pc, L, warp, warp_state_bytes(self.w, warp), own=True)

    def _look_for_closure(self, pc, lanes):
        """The random schedule, at a probed step (pc, `lanes`): feed the look for a closed set of
        states (order_closure.py), where it applies; when the set closes, no order ever leaves
        it: an endless loop, though memory moves (ping-pong)."""
        w, e = self.w, self.engine
        if self.closure_fits is None:
            regions = e.memory.regions.values()
            small = sum(r.storage.nbytes + (0 if r.init is None else r.init.nbytes)
                        for r in regions if r.storage is not None) <= MAX_MEMORY_BYTES
            self.closure_fits = small and not uses_context(e.prog, ("activemask",) + CLOCK_CALLS)
        choices = warp_choices(w, e.model, e.draws_points) \
            if self.closure_fits and e.yielded is None else None
        if choices is None:
            self.closure = None
            return
        stamp = (self.turns_given, w.sync_events)
        if self.closure is None or self.closure.stamp != stamp:
            self.closure = OrderClosure(stamp)
            self.closure.changes = e.memory.changes
        regions = e.memory.regions
        parts = [np.ascontiguousarray(a).tobytes() for a in self._arrays()]
        parts.append(repr(self._wave_sets()).encode())
        for rid in sorted(regions):
            for part in (regions[rid].storage, regions[rid].init):
                if part is not None:
                    parts.append(np.ascontiguousarray(part).tobytes())
        look = self.closure
        self.pcs_seen[pc] = w.steps
        if look.observe(w.steps, b"".join(parts), choices, (pc, int(lanes[0]) // WARP)):
            cycle = {p for p, step in self.pcs_seen.items() if step >= look.first_step} | {pc}
            if e.memory.changes == look.changes:
                # memory stood still: the plain report (every thread that could run ran, nothing moved)
                e.report.endless_loop(pc, lanes, w.steps - look.first_step, loop=self.loop_of(cycle))
            e.report.endless_loop(pc, lanes, len(look.states), loop=self.loop_of(cycle), every_order=True)

    def _reads_clock(self):
        """Does the kernel read the clock? The clock is not part of the state (it moves with the
        step count): a loop that waits for it (`while (clock64() - t0 < n)`) comes back to the
        same registers while its clock moves on, so no repeat of such a kernel proves anything,
        and only the time limit stops it."""
        if self.reads_clock is None:
            self.reads_clock = uses_context(self.engine.prog, CLOCK_CALLS)
        return self.reads_clock

    def _at_barrier(self, pc, L):
        """The random schedule, after a barrier completed: the whole state there (every lane,
        memory; not the scheduler's choice) seen before, with every lane that can run run since,
        is a cycle a fair schedule can repeat forever."""
        w = self.w
        if w.sync_events == getattr(self, "_sync_looked", None):
            return
        self._sync_looked = w.sync_events
        self.waiting = set()        # the per-warp look is void once warps met at a barrier
        key = self._lane_state(pc, None, whole=True, scheduler=False) + self._memory_state()
        memory = self.engine.memory
        first = self.sync_seen.get(key)
        if first is None or (first[1] != memory.changes and not self._every_order_repeats(first[2])):
            # (memory that took another value in between: warps that met at the barrier could
            # have seen it in another order, unless barriers alone handed values over; the look
            # starts again from here)
            self.sync_seen[key] = (w.steps, memory.changes, memory.atomics)
            return
        self._repeated(pc, L, first[0], first[1], since_atomics=first[2])

    def _every_order_repeats(self, since_atomics):
        """Does every order of the threads take the same steps between barriers, since the moment
        memory had counted `since_atomics` atomics? Yes when no atomic ran since (their order
        decides their values), a check stops the launch at every race, so that threads handed
        values to each other only through barriers (Plugin.stops_every_unordered_conflict), and
        nothing the kernel reads depends on the order: no __activemask(), no clock, no named
        barrier (which threads make up a phase of a count depends on who came first). Then what
        each thread reads between two barriers, and so what it does, is the same in every order:
        a state at a barrier's completion seen again, though memory moved in between, comes back
        in every order, forever."""
        e = self.engine
        if since_atomics != e.memory.atomics or not e.plugins.stop_every_unordered_conflict():
            return False
        if self.order_free_kernel is None:
            prog = e.prog
            self.order_free_kernel = not uses_context(prog, ("activemask",) + CLOCK_CALLS) and not any(
                s.op == "bar" and not (s.block_wide or s.grid_wide) for s in prog.sync_sites)
        return self.order_free_kernel

    def _repeated(self, pc, L, since, since_changes, exact=True, seen=None, since_atomics=None,
                  own_words=False):
        """The state at this step was seen at step `since` (memory's change count then:
        `since_changes`, its atomics `since_atomics` where the look knows them). If some lane that could run did not run since, the schedule was unfair:
        make it fair and look again. Else: an endless loop, when the match was `exact` (a match of
        digests only makes lanes fair; its verdict waits for an exact comparison). `seen`: (the
        lanes that ran since, the blocks run and their last steps) when the look saw steps that
        probes did not."""
        w, e = self.w, self.engine
        ran, ran_pcs = (self.last_ran >= since, self.ran_pcs) if seen is None else seen
        # the lanes that had their turn while memory never took another value than the one this
        # cycle sees (a write that changed a value, even one changed back later, gives every
        # other lane a new turn: it might have seen that value)
        memory, changes = self._memory_state(), e.memory.changes
        if self.turns is None or self.turns[0] != memory or self.turns[2] != changes:
            self.turns = (memory, ran, since_changes)
        else:
            self.turns = (memory, self.turns[1] | ran, self.turns[2])
        turned = self.turns[1]
        starved = (w.st == RUN) & ~turned
        rejoin = (w.st == JOIN) if e.model != "stack" else np.zeros(w.S, bool)
        if starved.any() or rejoin.any():
            if changes != since_changes:
                # memory took other values in the cycle, values the lanes that did not run never
                # saw: they get their turn at another phase of the cycle each time (the k-th time
                # k steps on), so that every value the cycle's memory takes is seen in the end
                self.tries += 1
                self.pending = (turned, rejoin, w.steps + self.tries % max(1, w.steps - since))
                return
            self._be_fair(turned, rejoin)
            if e.schedule != "random":
                self._fair_cycle(pc, L)
            return
        if e.sync.complete_reached(w):
            # lanes wait at a barrier every thread of theirs has reached, and barriers complete
            # only when nothing else can run: the loopers starved them (a spinner waiting for
            # another block's write after its barrier). They go on; the loopers yield.
            self._be_fair(turned, np.zeros(w.S, bool))
            return
        if not exact or self._reads_clock():
            return
        pre_volta = e.model == "stack" and bool(((w.st == JOIN) | (w.st == PARK)).any())
        cycle = {p for p, step in ran_pcs.items() if step >= since} | {pc}
        # (memory that moved in the cycle: a deterministic schedule's repeat, which another order
        # might leave, or one that every order repeats: random's looks ask for one of those or for
        # memory that never took another value)
        memory_words = {"own_words": True} if own_words else self._moved(changes != self.turns[2], since_atomics)
        e.report.endless_loop(pc, L, w.steps - since, pre_volta=pre_volta, loop=self.loop_of(cycle),
                              **memory_words)

    def _moved(self, memory_moved, since_atomics):
        """The endless report's words on memory: it moved in the cycle (a deterministic schedule
        repeats, another order might not), or it moved and every order repeats the cycle."""
        every_order = memory_moved and since_atomics is not None and self._every_order_repeats(since_atomics)
        return {"memory_moved": memory_moved and not every_order, "between_barriers": every_order}

    def _fair_cycle(self, pc, L):
        """A deterministic schedule that just gave lanes their turn (_be_fair, after a cycle in
        which memory stood still): two warps handing a flag back and forth (ping-pong) reach
        such a moment again and again, each time with other lanes yielding, and memory moves in
        between, so no single probe sees the whole cycle. Here the whole state is compared with
        the earlier such moments: lanes, memory, the scheduler (who yields now) and the watchdog's
        own state that decides its next turns (the probe's length, the turns given from moving
        memory, the lanes that had their turn). The same state again, within STARVE_STEPS steps
        and with every lane that can run (or, under the independent model, waits to reconverge)
        run in between, repeats forever: the schedule, with its turns, is a function of that
        state (the starvation watch never acts: every lane ran within STARVE_STEPS). The states
        are compared byte for byte (a digest only finds the candidate)."""
        w, e = self.w, self.engine
        if self.pending is not None or self._reads_clock():
            return
        exact = self._fair_state(pc, L)
        if exact is None:
            return
        key = hashlib.blake2b(exact, digest_size=16).digest()
        memory = e.memory
        first = self.fair_moments.get(key)
        if first is None or first[1] != exact:
            if len(self.fair_moments) >= MAX_FAIR_MOMENTS:
                self.fair_moments.clear()
            self.fair_moments[key] = (w.steps, exact, memory.changes, memory.atomics)
            return
        since, _, since_changes, since_atomics = first
        waiting = (w.st == RUN) | ((w.st == JOIN) if e.model != "stack" else False)
        if w.steps - since >= STARVE_STEPS or (waiting & (self.last_ran < since)).any():
            self.fair_moments[key] = (w.steps, exact, memory.changes, memory.atomics)
            return
        pre_volta = e.model == "stack" and bool(((w.st == JOIN) | (w.st == PARK)).any())
        cycle = {p for p, step in self.pcs_seen.items() if step >= since} | {pc}
        e.report.endless_loop(pc, L, w.steps - since, pre_volta=pre_volta, loop=self.loop_of(cycle),
                              **self._moved(memory.changes != since_changes, since_atomics))

    def _fair_state(self, pc, L):
        """The exact bytes of the state _fair_cycle compares (lanes, memory, scheduler, the
        watchdog's turns), or None where memory is too large to keep copies of."""
        e = self.engine
        lanes = (L.start, L.stop) if isinstance(L, slice) else tuple(np.asarray(L).tolist())
        parts = [np.ascontiguousarray(a).tobytes() for a in self._arrays()]
        parts.append(repr((pc, lanes, e._adv_warp, e._rr_warp, self._wave_sets(), self.probe_len,
                           self.tries)).encode())
        parts.append(b"" if e.yielded is None else np.packbits(e.yielded).tobytes())
        parts.append(b"" if self.turns is None else np.packbits(self.turns[1]).tobytes())
        regions = e.memory.regions
        size = sum(r.storage.nbytes for r in regions.values() if r.storage is not None)
        if size > EXACT_MEMORY_BYTES:
            return None
        for rid in sorted(regions):
            for part in (regions[rid].storage, regions[rid].init):
                if part is not None:
                    parts.append(np.ascontiguousarray(part).tobytes())
        return b"".join(parts)

    def loop_of(self, cycle):
        """The loop that a cycle of blocks goes round: the branch of its back edge (the outermost
        one of the cycle: blocks are numbered in reverse post-order, a loop's header before its
        body). -> its source line, or 0. (Not the line of the last step: that may be inside a
        helper function the loop calls.)"""
        blocks = self.engine.prog.blocks
        best = None
        for b in sorted(cycle):
            if b >= len(blocks):
                continue
            term = blocks[b].term
            targets = [getattr(term, f, None) for f in ("target", "if_true", "if_false")]
            for t in targets:
                if isinstance(t, int) and t <= b and t in cycle and (best is None or t < best[0]):
                    best = (t, b)
        if best is None:
            return 0
        header, source = (blocks[x] for x in best)
        for block in (source, header):
            if getattr(block.term, "line", 0):
                return block.term.line
        return header.first_line or source.first_line

    def _give_pending_turn(self):
        """The step came at which the lanes a cycle with moving memory starved get their turn
        (_repeated): the cycle's lanes yield there."""
        turned, rejoin, _ = self.pending
        self.pending = None
        self._be_fair(turned, rejoin & (self.w.st == JOIN))

    def _be_fair(self, turned, rejoin):
        """Lanes that can run did not: those waiting to reconverge go on without their looping
        warp-mates (rejoin), the lanes that had their turn yield, and a new probe starts from
        the fair schedule's state."""
        w, e = self.w, self.engine
        self.turns_given += 1
        if rejoin.any():
            w.leave_join_early(np.flatnonzero(rejoin))
        e.yield_lanes(turned)
        self.probe_end = None
        self.next_probe = w.steps + 1      # look again at once, with a probe of the same length

    def _starvation(self):
        """At the start of a probe: lanes that could run but stood still (same point, same
        registers, nobody ran them in the last probe) for STARVE_STEPS steps or more get their
        turn. A lane that only spins on a value with changing registers (a counter) never repeats
        a state, so without this a lockstep schedule could starve the lane it waits for forever;
        kernels that never make a lane wait that long are not affected."""
        w, e = self.w, self.engine
        waiting = (w.st == RUN) | ((w.st == JOIN) if e.model != "stack" else False)
        if self.idle is None or w.steps - self.idle[0] < STARVE_STEPS:
            if self.idle is None:
                self.idle = (w.steps, w.st.copy(), w.pc.copy(), [a.copy() for a in self._registers()])
            return
        step0, st0, pc0, regs0 = self.idle
        same = waiting & (w.st == st0) & (w.pc == pc0) & (self.last_ran < step0)
        for now, then in zip(self._registers(), regs0):
            if not same.any():
                break
            if now.shape != then.shape:
                same[:] = False
                break
            same &= (now == then).reshape(w.S, -1).all(axis=1)
        self.idle = None
        if same.any() and (waiting & ~same).any():
            self._be_fair(waiting & ~same, same & (w.st == JOIN))

    def _registers(self):
        w = self.w
        return [w.R[name] for name in sorted(w.R)]

    def _runnable_warps(self):
        w = self.w
        return set(np.flatnonzero((w.st == RUN).reshape(w.nwarps, WARP).any(axis=1)).tolist())

    def _scheduler_state(self, pc, L):
        """The scheduler's part of the state: who runs next, its position, who yields."""
        e = self.engine
        lanes = (L.start, L.stop) if isinstance(L, slice) else tuple(np.asarray(L).tolist())
        yielded = None if e.yielded is None else tuple(np.flatnonzero(e.yielded).tolist())
        return pc, lanes, e._adv_warp, e._rr_warp, yielded, self._wave_sets()

    def _wave_sets(self):
        """The wave's state kept outside its arrays: __activemask() splits, and the
        reconvergence points lanes no longer wait at (after leaving a join early)."""
        w = self.w
        return repr(w.activemask_split), repr(w.activemask_second), tuple(sorted(w.no_wait))

    def _same_arrays(self, L):
        """Are the lane arrays what the checkpoint holds? The lanes about to run first (their
        registers are the ones that change: a loop counter differs at once), then everything."""
        saved, R = self.checkpoint[1], self.w.R
        first = len(saved) - len(R)                # the registers come after the lane states
        for name, y in zip(sorted(R), saved[first:]):
            x = R[name]
            if x.shape == y.shape and x[L].tobytes() != y[L].tobytes():
                return False
        return all(x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(self._arrays(), saved))

    def _arrays(self):
        """The wave's lane state, most likely to differ first: points, states, sync sites,
        reconvergence stacks, open named-barrier phases, registers."""
        w = self.w
        return [w.pc, w.st, w.site, w.jdepth, w.top, w.jstack, w.named.arrived, w.named.count] + \
            [w.R[name] for name in sorted(w.R)]

    def _lane_state(self, pc, lanes, whole=True, scheduler=True):
        """A digest of the lanes' program state: the whole wave's (whole=True, with the lanes about
        to run and the scheduler's position unless scheduler=False) or one warp's (lanes: its slice)."""
        w, e = self.w, self.engine
        h = hashlib.blake2b(digest_size=16)
        part = slice(None) if whole else lanes
        for a in (w.pc, w.st, w.site, w.jstack, w.jdepth, w.top):
            h.update(np.ascontiguousarray(a[part]).data)
        for name in sorted(w.R):
            h.update(np.ascontiguousarray(w.R[name][part]).data)
        if whole:
            for a in (w.named.arrived, w.named.count):
                h.update(np.ascontiguousarray(a).data)
            h.update(repr(self._wave_sets()).encode())
            if scheduler:
                h.update(np.ascontiguousarray(np.arange(w.S)[lanes]).data)
                h.update(repr((pc, e._adv_warp, e._rr_warp)).encode())
        return h.digest()

    def _memory_state(self):
        h = hashlib.blake2b(digest_size=16)
        for rid in sorted(self.engine.memory.regions):
            region = self.engine.memory.regions[rid]
            for part in (region.storage, region.init):      # (init: which bytes were written)
                if part is not None:
                    h.update(np.ascontiguousarray(part).data)
        return h.digest()
