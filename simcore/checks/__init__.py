"""Checks and recorders as plugins (see base.py for the hooks).

A new check is one file with a `Plugin` subclass (its `checks` names, its `fault`, its rule and
messages in hooks fed by the core's facts) plus one row in REGISTERED; its `wanted(options)`
(by default: one of its `checks` names is on in the launch's checks=) decides whether a launch
builds it.
"""
from .base import Plugin
from .bounds import OutOfBoundsCheck
from .divergent_barrier import DivergentBarrierCheck
from .masks import InvalidMaskCheck
from .named_barriers import NamedBarrierCheck
from .races import RaceDetector
from .registry import HOOKS, Plugins, build_plugins
from ..recording.replay_recorder import ReplayRecorder
from ..recording.trace_recorder import TraceRecorder
from .undefined import UndefinedValueCheck
from .uninitialized import UninitializedCheck

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
__all__ = ["Plugin", "Plugins", "HOOKS", "REGISTERED", "CHECKS", "CHECK_FAULT_KINDS", "check_names", "fault_kinds",
           "build_plugins", "OutOfBoundsCheck", "RaceDetector",
           "UninitializedCheck", "UndefinedValueCheck", "InvalidMaskCheck", "DivergentBarrierCheck",
           "NamedBarrierCheck", "TraceRecorder", "ReplayRecorder"]
