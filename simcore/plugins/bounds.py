"""The 'out_of_bounds' check: an access outside its array, or outside a local array, is a fault.

Off, the bad lanes' accesses are skipped (reads give 0), as if the memory were not there."""
from .base import Plugin


class OutOfBoundsCheck(Plugin):
    checks = ("out_of_bounds",)

    def on_out_of_bounds(self, region, offsets, size, bad, lanes, site, kind):
        self.report.out_of_bounds(region, offsets, size, bad, lanes, site, kind)

    def on_local_out_of_bounds(self, index, length, lanes, site):
        self.report.local_bounds(index, length, lanes, site)
