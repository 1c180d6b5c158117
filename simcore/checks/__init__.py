"""The checks, as plugins (see base.py for the hooks).

A new check is one file with a `Plugin` subclass (its `checks` names, its `fault`, its rule and
messages in hooks fed by the core's facts) plus one row in `simcore.plugins.REGISTERED`; its
`wanted(options)` (by default: one of its `checks` names is on in the launch's checks=) decides
whether a launch builds it. The registry lives outside this package because it also lists the
recorders (simcore/recording), which are plugins too: were it here, `import
simcore.recording.trace_recorder` would run this file, which would import the recorder back
while it is half made.
"""
from .base import Plugin
from .bounds import OutOfBoundsCheck
from .divergent_barrier import DivergentBarrierCheck
from .masks import InvalidMaskCheck
from .named_barriers import NamedBarrierCheck
from .races import RaceDetector
from .registry import HOOKS, Plugins, build_plugins
from .undefined import UndefinedValueCheck
from .uninitialized import UninitializedCheck

__all__ = ["Plugin", "Plugins", "HOOKS", "build_plugins", "OutOfBoundsCheck", "RaceDetector",
           "UninitializedCheck", "UndefinedValueCheck", "InvalidMaskCheck", "DivergentBarrierCheck",
           "NamedBarrierCheck"]
