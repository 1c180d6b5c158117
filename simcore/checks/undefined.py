"""The 'undefined_value' check: a value no thread defined (from a lane that did not take part
in a shuffle, or a local variable read before any assignment) decides control flow or an
address, or is stored to memory.

The values carry taint bits in shadow registers (generated code and memory compute them); this
plugin decides which of them is a fault. Never-written shared memory alone (UNDEF_SHARED and
nothing else) is the 'uninitialized' check's (uninitialized.py)."""
import numpy as np

from ..runtime.memory import UNDEF_SHARED
from ..errors import UndefinedValue
from .base import Plugin


def stored_bits(taint, region):
    """The taint bits that make a store to `region` undefined. Copying never-written shared
    memory within shared memory is not (yet) a fault: the copy stays tracked instead."""
    if region.kind == "shared":
        taint = taint & ~np.uint8(UNDEF_SHARED)
    return taint, (int(np.bitwise_or.reduce(taint)) if len(taint) else 0)


class UndefinedValueCheck(Plugin):
    checks = ("undefined_value",)
    fault = UndefinedValue
    tracks_shared_writes = True     # never-written shared memory mixed with other undefined bits

    def on_undefined_use(self, taint, lanes, site, what):
        if int(np.bitwise_or.reduce(taint)) != UNDEF_SHARED:
            self.report.undefined_use("undefined_value", taint, lanes, site, what)

    def on_undefined_store(self, taint, region, lanes, site):
        taint, bits = stored_bits(taint, region)
        if bits and bits != UNDEF_SHARED:
            raise self.report.undefined_store("undefined_value", taint, region, lanes, site)
