"""The 'invalid_mask' check: a warp collective (__syncwarp, shuffle, vote, reduction, match)
whose mask names lanes that do not take part, leaves out the caller, or mixes intrinsics.
Sync resolution tells it the fact (a group of lanes that cannot complete as called); off, such
a collective completes with the lanes that are there (reads from absent lanes are undefined),
as it might on hardware."""
from ..runtime.wave import WARP
from ..errors import InvalidMask
from .report import lane_ranges
from .base import Plugin

FIX = ("name exactly the lanes that reach this call: compute the mask once, before any divergence "
       "(e.g. __ballot_sync(0xffffffff, condition) before the branch or loop), and use the same "
       "mask in every participating lane. Do not take it from __activemask() inside divergent code.")


class InvalidMaskCheck(Plugin):
    checks = ("invalid_mask",)
    fault = InvalidMask

    def on_invalid_mask(self, lanes, mask, warp, own_ok, bits, named_live, same_site):
        w = self.wave
        site = self.program.sync_sites[int(w.site[lanes[0]])]
        if not own_ok.all():
            bad = lanes[~own_ok]
            expl = (f"lane(s) {lane_ranges(w.slot_lane[bad])} called {site.name}() with mask 0x{mask:08x}, "
                    "which does not include their own lane: every caller must be named in its mask.")
        elif not same_site:
            expl = (f"lanes {lane_ranges(w.slot_lane[lanes])} use mask 0x{mask:08x} at different warp "
                    "intrinsics; the lanes named in a mask must execute the same intrinsic.")
        else:
            expl = self.absent_lanes_text(site, lanes, mask, bits, named_live)
        self.report.raise_("invalid_mask", f"Invalid mask 0x{mask:08x} for {site.name}()", expl, FIX,
                           [{"line": site.line, "text": site.text.strip(), "what": site.name}],
                           self.report.who(int(lanes[0])), mask=mask)

    def absent_lanes_text(self, site, lanes, mask, bits, named_live):
        """The mask names live lanes that are elsewhere: say where the first few are."""
        w = self.wave
        missing = named_live & ~bits
        miss = [i for i in range(32) if missing >> i & 1]
        base = w.slot_warp[int(lanes[0])] * WARP
        where = [f"lane {lane} is {self.report.position(base + lane)[2]}" for lane in miss[:3]]
        return (f"{site.name}() on line {site.line} was called by lanes {lane_ranges(w.slot_lane[lanes])} with "
                f"mask 0x{mask:08x}, which also names lane(s) {lane_ranges(miss)}; those lanes are alive "
                f"but do not take part ({'; '.join(where)}). A mask that names lanes that do not execute "
                "the intrinsic is undefined behaviour.")
