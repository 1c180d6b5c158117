"""Checks and recorders as plugins (see base.py for the hooks).

A new check is one file with a `Plugin` subclass plus one line in REGISTERED; its
`wanted(options)` (by default: one of its `checks` names is on in the launch's checks=) decides
whether a launch builds it.
"""
from .base import Plugin
from .races import RaceDetector
from .registry import HOOKS, Plugins, build_plugins
from .trace import TraceRecorder

# Every plugin a launch may build, in notification order.
REGISTERED = (
    RaceDetector,
    TraceRecorder,
)

__all__ = ["Plugin", "Plugins", "HOOKS", "REGISTERED", "build_plugins", "RaceDetector", "TraceRecorder"]
