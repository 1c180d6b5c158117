"""What `__activemask()` returns: the executing lanes, or, under the schedules that hunt for
schedule-dependent bugs, only the caller's part of them.

`__activemask()` returns the lanes of the warp that execute it together with the caller at that
moment (Guide, *Warp Vote Functions*). Under independent thread scheduling a warp may be split
at any instruction and reconverge later (Guide, *Independent Thread Scheduling*), and the call
has no side effect, so a schedule may legally run it with the executing lanes split in
sub-groups that reconverge right after: each lane then gets only its own sub-group. Its result
describes the schedule, not the algorithm; code that takes it as a shuffle or `__syncwarp`
mask and expects every live lane in it is wrong on a GPU even where it happens to work.

simcore shows that. Under the independent model with the `adversarial` or `random` schedule,
every `__activemask()` run by two or more lanes of a warp splits them in two sub-groups:
adversarial, the lower and the upper half of the executing lanes (in lane order); random, a
random non-empty part and the rest (drawn from the launch's seed, so a launch repeats). Under
`lockstep` and `round_robin`, the course's everyday pictures, and under the pre-Volta `stack`
model (one program counter per warp: the active mask is exact there), it returns every
executing lane. A legal use (warp-aggregated atomics: each sub-group elects its own leader and
adds its own count; a mask that is only printed or counted) works under every schedule.

Where it shows: the context (`Context.activemask`) records each split on the wave; a shuffle
that reads a lane of the other part reads an undefined value, and its report names the
`__activemask()` the mask came from (report.py); a `__syncwarp` with the second part's mask
orders only that part, so the first part runs on and the second waits there until nothing
else can run (sync/collectives.py), with a warning saying so.
"""
import numpy as np

SPLITTING_SCHEDULES = ("adversarial", "random")
_SALT = 0x61637469      # keeps these draws apart from the scheduler's own random stream


class ActiveMask:
    """The rule for one launch: `splits` says whether calls are split at all; `sub_groups`
    splits the executing lanes of one warp."""

    def __init__(self, schedule="lockstep", model="independent", seed=0):
        self.schedule = schedule
        self.splits = model == "independent" and schedule in SPLITTING_SCHEDULES
        self._rng = np.random.default_rng([int(seed), _SALT]) if schedule == "random" else None

    def sub_groups(self, count):
        """Positions (0..count-1, the executing lanes in lane order) -> the sub-group (0 or 1)
        of each; every lane in one group when count < 2."""
        group = np.zeros(count, np.int8)
        if count < 2:
            return group
        if self._rng is None:           # adversarial: the lower and the upper half
            group[(count + 1) // 2:] = 1
        else:                           # random: a random non-empty proper part
            order = self._rng.permutation(count)
            group[order[:int(self._rng.integers(1, count))]] = 1
        return group
