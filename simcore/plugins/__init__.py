"""Checks and recorders as plugins (see base.py for the hooks).

A new check is one file with a `Plugin` subclass plus one line in REGISTERED; its
`wanted(options)` (by default: one of its `checks` names is on in the launch's checks=) decides
whether a launch builds it.
"""
from .base import Plugin
from .bounds import OutOfBoundsCheck
from .divergent_barrier import DivergentBarrierCheck
from .masks import InvalidMaskCheck
from .named_barriers import NamedBarrierCheck
from .races import RaceDetector
from .registry import HOOKS, Plugins, build_plugins
from .trace import TraceRecorder
from .undefined import UndefinedValueCheck
from .uninitialized import UninitializedCheck

# Every plugin a launch may build, in notification order.
REGISTERED = (
    OutOfBoundsCheck,
    RaceDetector,
    UninitializedCheck,
    UndefinedValueCheck,
    InvalidMaskCheck,
    DivergentBarrierCheck,
    NamedBarrierCheck,
    TraceRecorder,
)

__all__ = ["Plugin", "Plugins", "HOOKS", "REGISTERED", "build_plugins", "OutOfBoundsCheck", "RaceDetector",
           "UninitializedCheck", "UndefinedValueCheck", "InvalidMaskCheck", "DivergentBarrierCheck",
           "NamedBarrierCheck", "TraceRecorder"]
