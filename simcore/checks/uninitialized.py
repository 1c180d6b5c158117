"""The 'uninitialized' check: a value read from shared memory that no thread of the block had
written decides control flow or an address, or reaches global memory."""
import numpy as np

from ..runtime.memory import UNDEF_SHARED
from ..errors import UninitializedRead
from .base import Plugin
from .undefined import stored_bits


class UninitializedCheck(Plugin):
    checks = ("uninitialized",)
    fault = UninitializedRead
    tracks_shared_writes = True

    def on_wave_start(self, wave):
        self.pending = None

    def on_undefined_use(self, taint, lanes, site, what):
        if int(np.bitwise_or.reduce(taint)) == UNDEF_SHARED:
            self.report.undefined_use("uninitialized", taint, lanes, site, what)

    def on_undefined_store(self, taint, region, lanes, site):
        taint, bits = stored_bits(taint, region)
        if bits == UNDEF_SHARED and self.pending is None:
            # Report it once the running threads stop: if another thread writes that shared
            # element later in the same barrier interval, the real bug is that race, and the race
            # detector says so first.
            self.pending = self.report.undefined_store("uninitialized", taint, region, lanes, site)

    def on_stalled(self):
        if self.pending is not None:
            raise self.pending
