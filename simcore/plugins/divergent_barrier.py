"""The 'divergent_barrier' check: the threads of a block reach barrier 0 at different calls of
__syncthreads() (compute-sanitizer's synccheck). Off, the barrier completes anyway."""
from .base import Plugin


class DivergentBarrierCheck(Plugin):
    checks = ("divergent_barrier",)

    def on_divergent_barrier(self, block, lanes):
        self.report.divergent_barrier(block, lanes)
