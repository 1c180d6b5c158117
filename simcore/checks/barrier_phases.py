"""Which phases of its block's barriers each thread knows to be complete: PTX's rule for a
thread that arrives at a barrier again.

A hardware barrier counts arrivals until `count` is reached, then resets for its next phase
("the barrier is reinitialized so that it can be immediately reused"). It does not know who
arrives: a thread that executes `bar.arrive` and then arrives at the same barrier again
before the barrier has reset is counted twice in one phase, and the phase completes without
the threads it was meant to wait for. PTX leaves this to the program: "Care must be taken to
keep a warp from executing more barrier instructions than intended (barrier.arrive followed
by any other barrier instruction to the same barrier) prior to the reset of the barrier"
(PTX ISA, `bar`/`barrier`).

Whether the second arrival lands in the same phase is a matter of timing, so a simulated run
that happened to reset the barrier in between proves nothing. What the program guarantees is
an order: a thread may arrive again only once it *knows* that the phase it arrived at has
completed, that is, when a chain of barrier waits leads from that completion to the thread.
This module keeps that knowledge, in the manner of a vector clock over barrier phases:

* every thread knows, per barrier id of its block, how many phases have completed;
* an arrival (bar.arrive, bar.sync, __syncthreads) brings the thread's knowledge to the phase;
* when a phase completes, the threads that waited in it (bar.sync, never bar.arrive) learn
  everything the phase's arrivals knew, plus the completion itself.

A thread whose earlier `bar.arrive` joined a phase it does not know to be complete arrives
again too early in *some* timing, whichever order this run took; so the check says so in
every schedule.

The same knowledge finds a count that does not cover every thread of a phase: a thread that
arrives at a barrier while an earlier phase of it completed without it, and no barrier wait
orders the thread after that completion, may in another timing arrive while that phase is
still open and be counted in it: that phase then has more arrivals than its count (a
producer/consumer hand-off whose count, `blockDim.x / 2`, covers one side only: each side
completes a phase by itself, and which threads pair up depends on the timing). Only barriers order threads here: a hand-over through memory flags is not
followed (no course kernel pairs one with named barriers).
"""
import numpy as np

from ..runtime.sync.named_barriers import NUM_BARRIERS


class BarrierPhases:
    """The phase knowledge of one wave (created only for programs that use bar.arrive: with
    sync-only barriers every arrival waits for its phase, so no thread can arrive early)."""

    def __init__(self, nblk, slots, slot_block):
        self.slot_block = slot_block
        self.completed = np.zeros((nblk, NUM_BARRIERS), np.int32)   # phases completed, per barrier
        # what the open phase of each barrier carries to its waiters: the most its arrivals knew
        self.carried = np.zeros((nblk, NUM_BARRIERS, NUM_BARRIERS), np.int32)
        self.known = np.zeros((slots, NUM_BARRIERS), np.int32)      # per thread: phases it knows done
        # per thread and barrier: the phase its last bar.arrive joined (-1: none) and where
        self.arrived_in = np.full((slots, NUM_BARRIERS), -1, np.int32)
        self.arrived_at = np.full((slots, NUM_BARRIERS), -1, np.int32)
        # who arrived in the last few phases of each named barrier, for the reports:
        # (block, id) -> {phase: [slots that arrived, whether any of them waited]}
        self.members = {}
        # per thread: the named barrier and phase it last waited in (-1: none)
        self.last_wait = np.full((slots, 2), -1, np.int32)

    def unordered(self, lanes, block, bar_id):
        """Mask of lanes that arrive at bar_id while a phase of it they took no part in has
        completed without their knowing: in another timing they are counted in that phase."""
        known = self.known[lanes, bar_id]
        last = self.arrived_in[lanes, bar_id]
        again = (last >= 0) & (known <= last)          # too_early's case: said in its own words
        return (known < self.completed[block, bar_id]) & ~again

    def known_phase(self, lane, bar_id):
        """How many phases of bar_id lane knows complete (the first one it does not know of)."""
        return int(self.known[lane, bar_id])

    def phase_members(self, block, bar_id, phase):
        """(slots that arrived in that phase, whether any waited) or None when forgotten."""
        got = self.members.get((block, bar_id), {}).get(phase)
        if got is None:
            return None
        return np.concatenate(got[0]), got[1]

    def _note_members(self, block, bar_id, lanes, waited):
        phases = self.members.setdefault((block, bar_id), {})
        phase = int(self.completed[block, bar_id])
        entry = phases.setdefault(phase, [[], False])
        entry[0].append(np.array(lanes, np.int64))
        entry[1] = entry[1] or waited
        for old in [p for p in phases if p < phase - 4]:
            del phases[old]

    def too_early(self, lanes, bar_id):
        """Mask of lanes whose earlier bar.arrive at bar_id joined a phase they do not know to
        be complete: arriving now may be counted in that same phase."""
        last = self.arrived_in[lanes, bar_id]
        return (last >= 0) & (self.known[lanes, bar_id] <= last)

    def earlier_site(self, lane, bar_id):
        """The sync site of lane's earlier bar.arrive at bar_id."""
        return int(self.arrived_at[lane, bar_id])

    def arrive(self, block, bar_id, lanes, site_id):
        """lanes of one block arrive at bar_id's open phase with bar.arrive (at sync site
        site_id): what they know goes to the phase's waiters, and they go on without learning
        when the phase completes, so remember which phase they joined. (Waiters are counted in
        when their phase completes: complete_blocks.)"""
        if len(lanes) == 0:
            return
        np.maximum(self.carried[block, bar_id], self.known[lanes].max(axis=0), out=self.carried[block, bar_id])
        if bar_id:
            self._note_members(block, bar_id, lanes, waited=False)
        self.arrived_in[lanes, bar_id] = self.completed[block, bar_id]
        self.arrived_at[lanes, bar_id] = site_id

    def complete_unwaited(self, block, bar_id):
        """A phase of bar.arrive alone completed: nobody waited in it, so nobody learns of it."""
        self.completed[block, bar_id] += 1
        self.carried[block, bar_id] = 0

    def complete_blocks(self, lanes, bar_id=0):
        """The phases of bar_id complete in every block of `lanes`, which are all their waiters
        (a block barrier, or a named barrier's bar.sync lanes): each block's waiters learn
        everything any of them and the phase's earlier arrivals knew."""
        lanes = np.asarray(lanes)
        blocks = self.slot_block[lanes]
        if len(lanes) > 1 and (blocks[1:] < blocks[:-1]).any():
            order = np.argsort(blocks, kind="stable")
            lanes, blocks = lanes[order], blocks[order]
        first = np.ones(len(lanes), bool)
        first[1:] = blocks[1:] != blocks[:-1]
        starts = np.flatnonzero(first)
        group = np.cumsum(first) - 1
        done = blocks[starts]
        if bar_id:          # a named barrier completes one block at a time
            self._note_members(int(done[0]), bar_id, lanes, waited=True)
            self.last_wait[lanes] = (bar_id, int(self.completed[done[0], bar_id]))
        self.completed[done, bar_id] += 1
        known = self.known[lanes]
        news = np.maximum(self.carried[done, bar_id], np.maximum.reduceat(known, starts, axis=0))
        news[:, bar_id] = self.completed[done, bar_id]
        self.carried[done, bar_id] = 0
        self.known[lanes] = np.maximum(known, news[group])
