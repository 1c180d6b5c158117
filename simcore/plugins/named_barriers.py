"""The 'named_barrier' check: bar.sync / bar.arrive used against PTX's rules (an id outside
0-15, counts that disagree or are no multiple of 32, more arrivals than the count, a thread
arriving again after bar.arrive before it can know that phase completed). Off, the arrivals
count and the phase completes as it would on hardware."""
from .base import Plugin


class NamedBarrierCheck(Plugin):
    checks = ("named_barrier",)

    def on_named_barrier_misuse(self, block, bar_id, lanes, message, too_many, fix=None):
        self.report.named_barrier(block, bar_id, lanes, message, too_many, fix)
