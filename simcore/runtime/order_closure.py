"""Endless in every order: the random schedule's look for small cycles in which memory moves.

Two warps (or two blocks) handing a flag back and forth forever (ping-pong) change memory at
every hand-off, so the random schedule's other looks, which need memory that stands still, never
end such a launch: in another order a waiter might see a value it missed (a flag set and set
back), so a repeat of the state proves nothing. What does prove it is closure: a set of states
such that every step the schedule could take from any of them leads back into the set. Nothing
can then ever leave it, in any order, and the kernel never ends.

The look records, while the watchdog sees consecutive steps, every state (exact bytes: lane
states and registers, memory, the wave's sets; never a digest) together with the steps the
schedule could take there, and which of those it took. A step is a (program point, lanes)
choice; it is a function of the state, so one sight of each choice suffices. When every state
seen has had every one of its choices taken, the set is closed. The look is kept where that
argument is exact and cheap:

* the kernel never calls __activemask() (under random its result is drawn: a step would not be
  a function of the state) and no lanes yield (then the schedule runs part of a group);
* the steps are the random schedule's own (a warp, then one of its runnable points, all its
  runnable lanes there): simcore's granularity, as for every other verdict;
* no lane waits at a barrier (a barrier whose threads have all arrived could complete in
  another order) or, under the independent model, to reconverge (it could go on without its
  warp-mates); the watchdog gave no turn in between (its turns change state outside a step);
* few lanes run (MAX_RUNNING) and memory is small (MAX_MEMORY_BYTES), and the look forgets its
  states when they pass MAX_STATES or MAX_KEPT_BYTES (a kernel whose reachable states are many
  is not judged here).
"""
import numpy as np

from .wave import JOIN, RUN, WARP

MAX_RUNNING = 256           # runnable lanes at most
MAX_MEMORY_BYTES = 1 << 14  # memory (storage and written bytes) at most
MAX_STATES = 1 << 12        # states kept at most (then the look starts again)
MAX_KEPT_BYTES = 1 << 25    # and their bytes at most


def warp_choices(w, model, draws_points):
    """The steps the random schedule could take now, [(point, warp)] (a warp, then one of its
    runnable points, or its lowest one where the schedule does not draw points), or None where
    the look does not apply: too many lanes run, a lane waits at a barrier or (independent
    model) to reconverge."""
    slots = np.flatnonzero(w.st == RUN)
    if len(slots) == 0 or len(slots) > MAX_RUNNING or w.waiting_count.any():
        return None
    if model != "stack" and (w.st == JOIN).any():
        return None
    choices = set(zip(w.pc[slots].tolist(), (slots // WARP).tolist()))
    if not draws_points:
        lowest = {}
        for point, warp in choices:
            lowest[warp] = min(point, lowest.get(warp, point))
        choices = {(point, warp) for warp, point in lowest.items()}
    return choices


class OrderClosure:
    def __init__(self, stamp):
        self.stamp = stamp          # what must stand still (the watchdog's turns, the wave)
        self.states = {}            # state bytes -> [its choices not yet taken (a set)]
        self.missing = 0            # choices of states seen, not yet taken
        self.prev = None            # (state bytes, choice, step) of the last step seen
        self.first_step = None

    def observe(self, step, state, choices, choice):
        # (choices: a set of (point, warp); choice: the one this step takes)
        """The step `step` is about to take `choice` from `state` (its possible `choices`).
        -> True when every state seen has had every choice taken: closed."""
        if self.first_step is None:
            self.first_step = step
        prev = self.prev
        if prev is not None and prev[2] == step - 1:
            untaken = self.states.get(prev[0])
            if untaken is not None and prev[1] in untaken:
                untaken.discard(prev[1])
                self.missing -= 1
        if state not in self.states:
            if len(self.states) >= min(MAX_STATES, MAX_KEPT_BYTES // len(state)):
                self.states.clear()
                self.missing = 0
            self.states[state] = set(choices)
            self.missing += len(choices)
        self.prev = (state, choice, step)
        return self.missing == 0
