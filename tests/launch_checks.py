"""Launching a kernel in a test and expecting its verdict (not a test module)."""
import warnings

import pytest

import simcore


def fault_of(k, *args, **kw):
    """Launch expecting a KernelFault; return it."""
    with pytest.raises(simcore.KernelFault) as info:
        k(*args, **kw)
    return info.value


def run_clean(k, *args, **kw):
    """Launch expecting no fault and no SimWarning; return the launch record."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", simcore.SimWarning)
        k(*args, **kw)
    return k.last_launch
