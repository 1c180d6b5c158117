"""Run a kernel once and capture what happened, without letting a fault stop the notebook.

``run_kernel(kern, grid, block, args, **launch_options)`` -> ``KernelRun``
    one launch. ``.status`` is ``"completed"``, the fault's kind (``"deadlock"``,
    ``"race"``, ...) or ``"error"`` (a compile or launch error); ``.fault`` the exception
    (or ``None``); ``.warnings`` the texts of the ``simcore.SimWarning`` s it raised.
``report_section(fault, name)`` / ``print_sections(fault, *names)``
    parts of a fault report, built from ``fault.report`` (never by parsing ``str(fault)``):
    ``"title"``, ``"head"`` (the sanitizer-like lines at the top), ``"what"`` (What
    happened), ``"where"`` (Where every warp was), ``"fix"`` (How to fix it).

A lesson cell that shows a fault report fails loudly when the launch did not fault (the
simulator regressed): ``report_section(None, ...)`` raises an ``AssertionError`` saying so.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

__all__ = ["KernelRun", "run_kernel", "report_section", "print_sections", "SECTIONS"]

# the report fields each section shows (the rest of a report belongs to the head)
_BODY_FIELDS = {"what": "explanation", "where": "warps_text", "fix": "fix"}
SECTIONS = ("title", "head", "what", "where", "fix")


@dataclass
class KernelRun:
    """What one launch did: completed (maybe with SimWarnings), faulted, or was refused."""

    status: str                                   # "completed", the fault kind, or "error"
    fault: BaseException | None = None            # the KernelFault, CompileError or LaunchError
    warnings: list = field(default_factory=list)  # texts of the SimWarnings

    @property
    def completed(self):
        return self.status == "completed"

    @property
    def kind(self):
        """The fault's kind (``None`` when the launch completed or was refused)."""
        return getattr(self.fault, "kind", None)

    @property
    def line(self):
        """The source line the fault report names first (``None`` when there is none)."""
        return getattr(self.fault, "line", None)

    def __str__(self):
        if self.status == "error":
            return f"ERROR {type(self.fault).__name__}: {_first_line(self.fault)}"
        if self.fault is not None:
            return f"FAULT {self.status}: {report_section(self.fault, 'title')}"
        extra = f" ({len(self.warnings)} SimWarning(s))" if self.warnings else ""
        return f"completed{extra}"


def run_kernel(kern, grid, block, args, **launch_options):
    """Launch ``kern`` once; never raises a ``simcore.KernelFault``, ``CompileError`` or
    ``LaunchError``: returns a ``KernelRun`` saying what happened. SimWarnings are recorded
    in ``.warnings`` instead of being shown."""
    import simcore

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", simcore.SimWarning)
        try:
            kern(grid, block, args, **launch_options)
        except simcore.KernelFault as fault:
            status, error = fault.kind, fault
        except (simcore.CompileError, simcore.LaunchError) as err:
            status, error = "error", err
        else:
            status, error = "completed", None
    texts = [str(w.message) for w in caught if issubclass(w.category, simcore.SimWarning)]
    for w in caught:                      # warnings that are not SimWarnings: show them as usual
        if not issubclass(w.category, simcore.SimWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return KernelRun(status, error, texts)


def report_section(fault, name):
    """One part of a fault report, from ``fault.report``: ``"title"`` (one line),
    ``"head"`` (the sanitizer-like lines), ``"what"``, ``"where"`` or ``"fix"`` (the
    paragraph under that heading); ``""`` when the report has no such part."""
    from simcore.errors import format_report

    if fault is None:
        raise AssertionError("no fault report to show: the launch completed, but this cell "
                             "expected the simulator to report one (please tell the course authors)")
    report = fault.report
    if name == "title":
        return report.get("title", report.get("kind", ""))
    if name == "head":
        return format_report({k: v for k, v in report.items() if k not in _BODY_FIELDS.values()})
    if name not in _BODY_FIELDS:
        raise ValueError(f"unknown report section {name!r}; the sections are {', '.join(SECTIONS)}")
    value = report.get(_BODY_FIELDS[name])
    if not value:
        return ""
    # the headings of the report's text (simcore.errors.format_report)
    if name == "what":
        return "What happened: " + value
    if name == "where":
        return "\n".join(["Where every warp was:"] + ["  " + w for w in value])
    return "How to fix it: " + value


def print_sections(fault, *names):
    """Print the named sections of a fault report, separated by blank lines."""
    print("\n\n".join(s for s in (report_section(fault, n) for n in names) if s))


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else ""
