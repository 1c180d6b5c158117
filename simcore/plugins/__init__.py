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
from .replay_recorder import ReplayRecorder
from .trace import TraceRecorder
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
# The launch checks (checks=[...] names), and the fault kinds the checks raise: from the rows above.
CHECKS = tuple(name for cls in REGISTERED for name in cls.checks)
CHECK_FAULT_KINDS = tuple(dict.fromkeys(cls.fault.kind for cls in REGISTERED if cls.fault is not None))
__all__ = ["Plugin", "Plugins", "HOOKS", "REGISTERED", "CHECKS", "CHECK_FAULT_KINDS", "build_plugins", "OutOfBoundsCheck", "RaceDetector",
           "UninitializedCheck", "UndefinedValueCheck", "InvalidMaskCheck", "DivergentBarrierCheck",
           "NamedBarrierCheck", "TraceRecorder", "ReplayRecorder"]
