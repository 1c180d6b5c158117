"""The 'named_barrier' check: bar.sync / bar.arrive used against PTX's rules (an id outside
0-15, counts that disagree or are no multiple of 32, a count that changes while a phase is open,
more arrivals than the count, a thread arriving again after bar.arrive before it can know that
phase completed, a thread arriving unordered after a phase it took no part in). Off, the
arrivals count and the phase completes as it would on hardware.

Sync resolution (sync/named_barriers.py) tells it the facts: arrivals with their ids and
counts, lanes joining a phase, bar.arrive signals, completed phases. The phase knowledge
(barrier_phases.py) is kept here, in programs with named barriers only."""
import numpy as np

from ..runtime.wave import WARP
from ..errors import NamedBarrierError
from .barrier_phases import NUM_BARRIERS, BarrierPhases
from .base import Plugin

GENERIC_FIX = ("make every thread of the group arrive with the same id and count, with the count equal to the "
               "number of threads in the group (a multiple of 32), and keep other threads off that barrier id.")
ARRIVE_AGAIN_FIX = ("give every hand-off that can be in flight at the same time its own barrier id (a block has 16); "
                    "reuse an id only where the threads that signalled with bar.arrive have since waited "
                    "(bar.sync) for something that comes after that phase completed.")


def count_fix(bar_id):
    return (f"make the count of barrier {bar_id} the number of threads that arrive at it in one phase, both "
            "sides of the hand-off: the threads that signal with bar.arrive and those that wait with bar.sync "
            "(e.g. blockDim.x when every thread of the block takes part, not blockDim.x / 2); if the threads "
            "named here are a separate group, give them their own barrier id, or let them arrive only after "
            "waiting at a barrier that comes after the earlier phase.")


def threads(w, lanes):
    """'thread 5', 'threads 64-127' or '40 threads (3 to 90)': thread indices within the block."""
    tids = w.slot_thread[np.asarray(lanes)]
    lo, hi = int(tids.min()), int(tids.max())
    if lo == hi:
        return f"thread {lo}"
    n = len(np.unique(tids))
    return f"threads {lo}-{hi}" if n == hi - lo + 1 else f"{n} threads ({lo} to {hi})"


class NamedBarrierCheck(Plugin):
    checks = ("named_barrier",)
    fault = NamedBarrierError

    def on_wave_start(self, wave):
        named = any(s.op == "bar" and not s.block_wide for s in self.program.sync_sites)
        self.phases = BarrierPhases(wave.nblk, wave.S, wave.slot_block) if named else None

    # ---- the rules
    def on_named_barrier_arrival(self, block, bar_id, lanes, counts, live_in_block):
        if not 0 <= bar_id < NUM_BARRIERS:
            self.misuse(block, bar_id, lanes, f"barrier id {bar_id} is out of range: PTX has barriers 0 to 15")
        eff = np.where(counts < 0, live_in_block, counts)
        c0 = int(eff[0])
        if (eff != c0).any():
            self.misuse(block, bar_id, lanes, f"threads arriving at barrier {bar_id} disagree on its "
                        f"thread count ({', '.join(map(str, np.unique(eff)))})")
        if (counts >= 0).any() and (c0 % WARP != 0 or c0 <= 0):
            self.misuse(block, bar_id, lanes, f"bar.sync {bar_id}, {c0}: the thread count must be a positive "
                        "multiple of the warp size (32); on an H200 this is an illegal instruction")
        opened = self.wave.named.count[block, bar_id]
        if opened and opened != c0:
            self.misuse(block, bar_id, lanes, f"barrier {bar_id} was opened with count {opened} by "
                        f"bar.arrive, then used with count {c0}")

    def on_named_barrier_overfull(self, block, bar_id, lanes, arrivals, count):
        self.misuse(block, bar_id, lanes, f"{arrivals} threads arrived at barrier {bar_id} in one phase but its "
                    f"count is {count}: more participants than the count (the group is larger than the barrier "
                    "expects)")

    def on_barrier_phase_join(self, block, bar_id, lanes, count):
        """Arriving again before the barrier has reset (barrier_phases explains the rule)."""
        phases = self.phases
        if phases is None:
            return
        early = phases.too_early(lanes, bar_id)
        if early.any():
            self.arrived_again(block, bar_id, lanes[early], count)
        if bar_id:
            unordered = phases.unordered(lanes, block, bar_id)
            if unordered.any():
                self.misuse(block, bar_id, lanes[unordered], self.unordered_text(block, bar_id, lanes[unordered],
                                                                                 count), fix=count_fix(bar_id))

    def arrived_again(self, block, bar_id, lanes, count):
        """lanes arrive at bar_id while the phase their bar.arrive joined may still be open: say
        why, the most specific explanation first."""
        unwaited = self.unwaited_phase(block, bar_id, int(lanes[0]))
        if unwaited is not None:    # the phase was filled by one side alone: the count is wrong
            self.misuse(block, bar_id, lanes, self.one_side_text(bar_id, lanes, count, *unwaited),
                        fix=count_fix(bar_id))
        among = self.waited_among_themselves(block, bar_id, int(lanes[0]))
        if among is not None:       # the wait in between was filled by this side alone
            self.misuse(block, bar_id, lanes, self.among_themselves_text(bar_id, lanes, count, *among),
                        fix=count_fix(among[0]))
        self.misuse(block, bar_id, lanes, self.arrived_again_text(bar_id, lanes, count), fix=ARRIVE_AGAIN_FIX)

    # ---- the phase knowledge, from the facts
    def on_barrier_signal(self, block, bar_id, lanes, site_id):
        if self.phases is not None:
            self.phases.arrive(block, bar_id, lanes, site_id)

    def on_barrier_phase_complete(self, bar_id, lanes):
        if self.phases is not None:
            self.phases.complete_blocks(lanes, bar_id)

    def on_unwaited_phase_complete(self, block, bar_id):
        if self.phases is not None:
            self.phases.complete_unwaited(block, bar_id)

    def unwaited_phase(self, b, bar_id, lane):
        """The phase lane's earlier bar.arrive joined, if it completed with bar.arrive arrivals
        alone (nobody waited in it): (phase, its members), else None."""
        phases = self.phases
        phase = int(phases.arrived_in[lane, bar_id])
        if bar_id == 0 or phases.completed[b, bar_id] <= phase:
            return None
        got = phases.phase_members(b, bar_id, phase)
        if got is None or got[1]:
            return None
        return phase, got[0]

    def waited_among_themselves(self, b, bar_id, lane):
        """After its bar.arrive at bar_id, lane waited at another named barrier; if that phase's
        threads were all among bar_id's signallers (one side of the hand-off met itself, so the
        wait told it nothing of the other side): (that barrier, its phase, its members)."""
        phases = self.phases
        other, phase = (int(x) for x in phases.last_wait[lane])
        if other <= 0 or other == bar_id:
            return None
        waited = phases.phase_members(b, other, phase)
        signalled = phases.phase_members(b, bar_id, int(phases.arrived_in[lane, bar_id]))
        if waited is None or signalled is None or not np.isin(waited[0], signalled[0]).all():
            return None
        return other, phase, waited[0]

    # ---- the messages
    def misuse(self, b, bar_id, lanes, message, fix=None):
        w = self.wave
        site = self.program.sync_sites[int(w.site[lanes[0]])]
        self.report.raise_("named_barrier", f"Named barrier {bar_id} misused", message + ".", fix or GENERIC_FIX,
                           [{"line": site.line, "text": site.text.strip(), "what": site.name}],
                           self.report.who(lanes[0]), block=w.first_block + b, barrier=bar_id)

    def site_of(self, lanes):
        return self.program.sync_sites[int(self.wave.site[lanes[0]])]

    def among_themselves_text(self, bar_id, lanes, c0, other, phase, members):
        w = self.wave
        return (f"{threads(w, lanes)} arrive at barrier {bar_id} again, at {self.site_of(lanes).where}, before the "
                f"phase they joined with bar.arrive reached its count of {c0}. They did wait in between, at barrier "
                f"{other}, but its phase {phase} completed with {threads(w, members)} alone, the same threads that "
                f"signalled barrier {bar_id}: the count of barrier {other} ({len(members)}) covers one side of its "
                f"hand-off only, so that wait did not wait for the other side. Expected per phase of barrier "
                f"{other}: the threads that wait there and the threads that signal it; arrived: {len(members)}")

    def one_side_text(self, bar_id, lanes, c0, phase, members):
        w = self.wave
        return (f"{threads(w, lanes)} arrive at barrier {bar_id} again, at {self.site_of(lanes).where}, but phase "
                f"{phase} of barrier {bar_id}, which they joined with bar.arrive, reached its count of {c0} with the "
                f"bar.arrive arrivals of {threads(w, members)} alone: nobody waited in it (bar.sync), so it "
                f"handed nothing over. The count covers one side of the hand-off only: expected {c0} arrivals "
                f"per phase, but the signalling side alone brings {len(members)}, and the threads that wait with "
                f"bar.sync {bar_id} come on top")

    def unordered_text(self, b, bar_id, lanes, c0):
        w, phases = self.wave, self.phases
        phase = phases.known_phase(int(lanes[0]), bar_id)
        got = phases.phase_members(b, bar_id, phase)
        if got is not None:
            members, waited = got
            how = "" if waited else " (all with bar.arrive: nobody waited in it)"
            earlier = f"which reached its count of {c0} with {threads(w, members)}{how}"
            others = len(members)
        else:
            earlier, others = f"which reached its count of {c0} with other threads", c0
        n = len(lanes)
        return (f"{threads(w, lanes)} arrive at barrier {bar_id} at {self.site_of(lanes).where}, and no barrier "
                f"they waited at orders them after phase {phase} of barrier {bar_id}, {earlier}. A barrier counts "
                f"arrivals, not threads: in another timing these {n} threads arrive while phase {phase} is still "
                f"open and are counted in it, so its arrivals are {others} + {n} = {others + n} (or more) where the "
                f"count expects {c0}, and which threads a phase releases depends on the timing (a race or a hang)")

    def arrived_again_text(self, bar_id, lanes, c0):
        site = self.site_of(lanes)
        earlier = self.program.sync_sites[self.phases.earlier_site(int(lanes[0]), bar_id)]
        before = "at the same place" if earlier.id == site.id else f"at {earlier.where}"
        return (f"{threads(self.wave, lanes)} arrive at barrier {bar_id} again, at {site.where}, before they can "
                f"know that the phase they joined earlier with bar.arrive ({before}) reached its count of {c0}: no "
                f"barrier they waited at since comes after that phase. A barrier counts arrivals, not threads: in "
                f"some timing both arrivals land in one phase, which then completes without the threads it should "
                f"wait for (a race or a hang). PTX: keep a warp from executing bar.arrive followed by another "
                f"barrier instruction on the same barrier before the barrier resets; two hand-offs that can be in "
                f"flight at once need two barrier ids")
