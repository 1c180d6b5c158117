"""Every plugin a launch may build -- the checks (simcore/checks) and the recorders
(simcore/recording) -- and what follows from that list: the launch's check names
(`simcore.CHECKS`) and the fault kinds the checks raise.

A new check or recorder is one row in REGISTERED; nothing else lists them.
"""
from .checks import (DivergentBarrierCheck, InvalidMaskCheck, NamedBarrierCheck, OutOfBoundsCheck,
                     RaceDetector, UndefinedValueCheck, UninitializedCheck)
from .recording.replay_recorder import ReplayRecorder
from .recording.trace_recorder import TraceRecorder

# Every plugin a launch may build, in notification order (the recorder first: it must see an
# access before a check raises a fault on it; the checks in the order simcore.CHECKS lists them).
REGISTERED = (
    ReplayRecorder,
    DivergentBarrierCheck,
    RaceDetector,
    InvalidMaskCheck,
    UndefinedValueCheck,
    UninitializedCheck,
    NamedBarrierCheck,
    OutOfBoundsCheck,
)


def check_names(registered):
    """The launch checks (checks=[...] names) of these plugin classes, in their order."""
    return tuple(name for cls in registered for name in cls.checks)


def fault_kinds(registered):
    """The fault kinds these plugin classes raise, in their order."""
    return tuple(dict.fromkeys(cls.fault.kind for cls in registered if cls.fault is not None))


CHECKS = check_names(REGISTERED)
CHECK_FAULT_KINDS = fault_kinds(REGISTERED)

__all__ = ["REGISTERED", "CHECKS", "CHECK_FAULT_KINDS", "check_names", "fault_kinds", "ReplayRecorder", "TraceRecorder"]
