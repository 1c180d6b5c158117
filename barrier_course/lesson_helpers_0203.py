"""Small helpers for lessons 02 (divergence) and 03 (barrier variants).

They only wrap what the lessons would otherwise repeat in every cell: launch a kernel once,
catch a ``simcore.KernelFault`` (so that a notebook demonstrating a fault still runs top to
bottom), collect the ``simcore.SimWarning`` messages, and print the parts of a fault report a
cell is talking about.

``attempt(kern, grid, block, args, **sim_options)`` -> ``Attempt``
    one launch; ``.status`` is ``"completed"`` or the fault's kind (``"deadlock"``, ...),
    ``.fault`` the ``KernelFault`` (or ``None``), ``.warnings`` the SimWarning texts.
``report_section(fault, name)``
    one section of a fault report: ``"head"`` (the sanitizer-like lines at the top),
    ``"what"`` (What happened), ``"where"`` (Where every warp was), ``"fix"`` (How to fix it).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

__all__ = ["Attempt", "attempt", "report_section", "print_sections"]

_SECTIONS = {"what": "What happened:", "where": "Where every warp was:",
             "fix": "How to fix it:"}


@dataclass
class Attempt:
    """What one launch did: completed (maybe with warnings) or faulted."""

    status: str                                  # "completed" or the fault kind
    fault: BaseException | None = None
    warnings: list = field(default_factory=list)  # texts of the SimWarnings

    @property
    def completed(self):
        return self.status == "completed"

    def __str__(self):
        if self.fault is not None:
            return f"FAULT {self.status}: {report_section(self.fault, 'title')}"
        extra = f" ({len(self.warnings)} SimWarning(s))" if self.warnings else ""
        return f"completed{extra}"


def attempt(kern, grid, block, args, **sim_options):
    """Launch ``kern`` once; never raises a ``simcore.KernelFault``, returns an ``Attempt``."""
    import simcore

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", simcore.SimWarning)
        try:
            kern(grid, block, args, **sim_options)
        except simcore.KernelFault as fault:
            return Attempt(fault.kind, fault,
                           [str(w.message) for w in caught
                            if issubclass(w.category, simcore.SimWarning)])
    return Attempt("completed", None,
                   [str(w.message) for w in caught if issubclass(w.category, simcore.SimWarning)])


def report_section(fault, name):
    """A part of ``str(fault)``: "title" (first line), "head" (lines before the first
    blank line), "what", "where" or "fix" (the paragraph under that heading)."""
    text = str(fault).strip("\n")
    if name == "title":
        return text.splitlines()[0].replace("=========", "").strip()
    if name == "head":
        return text.split("\n\n")[0]
    marker = _SECTIONS[name]
    if marker not in text:
        return ""
    part = text.split(marker, 1)[1]
    others = [m for m in _SECTIONS.values() if m != marker and m in part]
    for m in others:
        part = part.split(m, 1)[0]
    return (marker + part).rstrip()


def print_sections(fault, *names):
    """Print the named sections of a fault report, separated by blank lines."""
    print("\n\n".join(s for s in (report_section(fault, n) for n in names) if s))
