"""The 'invalid_mask' check: a warp collective (__syncwarp, shuffle, vote) whose mask names
lanes that do not take part, leaves out the caller, or mixes intrinsics.

Off, such a collective completes with the lanes that are there (reads from absent lanes are
undefined), as it might on hardware."""
from .base import Plugin


class InvalidMaskCheck(Plugin):
    checks = ("invalid_mask",)

    def on_invalid_mask(self, lanes, mask, warp, own_ok, bits, named_live, same_site):
        self.report.invalid_mask(lanes, mask, warp, own_ok, bits, named_live, same_site)
