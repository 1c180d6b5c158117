"""Every error a simcore user can see.

Three families, each with a message written for a student:
  CompileError  - the source is not in the CUDA subset we understand (or is not C at all);
  LaunchError   - the launch itself is invalid (grid/block limits, arguments);
  KernelFault   - the kernel ran into undefined behaviour; `.report` says what, where, why.

A fault kind is a KernelFault subclass made by `fault_class`, which registers it for
`make_fault`: the core's kinds and the public classes of the launch checks are made here; a new
check may make its own in its plugin file (its `fault`).
"""


class SimcoreError(Exception):
    """Base class of every error simcore raises on purpose."""


class CompileError(SimcoreError):
    """The kernel source could not be compiled.

    `line`/`column` are 1-based positions in the source the user wrote, `construct` names
    what was not understood, `source_line` is that line's text.
    """

    def __init__(self, message, line=None, column=None, construct=None, source_line=None):
        self.message = message
        self.line = line
        self.column = column
        self.construct = construct
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self):
        where = ""
        if self.line is not None:
            where = f"line {self.line}" + (f", column {self.column}" if self.column else "") + ": "
        text = f"{where}{self.message}"
        if self.source_line is not None:
            text += "\n    " + self.source_line.rstrip()
            if self.column:
                # Keep tabs so the caret lines up under tab-indented code.
                pad = "".join(c if c == "\t" else " " for c in self.source_line[: self.column - 1])
                text += "\n    " + pad + "^"
        return text


class LaunchError(SimcoreError):
    """The launch configuration or the arguments are invalid."""


class SimulatorError(SimcoreError):
    """A bug inside simcore itself (never the student's fault)."""


class KernelFault(SimcoreError):
    """The kernel hit undefined behaviour. `kind` is a short stable name."""

    kind = "fault"

    def __init__(self, report):
        self.report = report
        self.line = report.get("line")
        super().__init__(format_report(report))

    @property
    def title(self):
        return self.report.get("title", self.kind)


# kind -> fault class: every class made by fault_class (the core's below, each check's own in
# its plugin file or here when it is public API)
FAULT_CLASSES = {}


def fault_class(name, kind, doc, base=KernelFault):
    """A KernelFault subclass for reports of `kind`, registered so that make_fault finds it."""
    cls = type(name, (base,), {"kind": kind, "__doc__": doc})
    FAULT_CLASSES[kind] = cls
    return cls


DivergentBarrier = fault_class("DivergentBarrier", "divergent_barrier",
                               "Threads of one block reached different barriers (or some never reached it).")
Deadlock = fault_class("Deadlock", "deadlock", "No thread can make progress and some have not exited.")
DataRace = fault_class("DataRace", "race", "Two threads accessed one location without a barrier between them.")
InvalidMask = fault_class("InvalidMask", "invalid_mask", "A warp intrinsic's mask names lanes that do not take part.")
UndefinedValue = fault_class("UndefinedValue", "undefined_value",
                             "A value that is undefined (e.g. shuffled from a lane not taking part) was used.")
UninitializedRead = fault_class("UninitializedRead", "uninitialized",
                                "Shared memory that no thread wrote was read and reached the output.")
NamedBarrierError = fault_class("NamedBarrierError", "named_barrier",
                                "A named barrier (bar.sync id, count) was misused.")
OutOfBounds = fault_class("OutOfBounds", "out_of_bounds", "An access fell outside its array.")
StepLimit = fault_class("StepLimit", "step_limit", "The kernel ran too long (probably an endless loop).")
TimeLimit = fault_class("TimeLimit", "time_limit", "The simulator's time limit stopped the launch: no verdict on "
                        "the kernel (it protects the caller).", base=StepLimit)
MisalignedAccess = fault_class("MisalignedAccess", "misaligned", "An access was not aligned to its size.")
DivisionByZero = fault_class("DivisionByZero", "division_by_zero", "An integer division by zero.")
UndefinedShift = fault_class("UndefinedShift", "undefined_shift",
                             "A shift by a count that is negative or not less than the width of its operand.")
ReadOnlyWrite = fault_class("ReadOnlyWrite", "read_only", "A write to an array that was passed read-only.")


def make_fault(kind, **report):
    report["kind"] = kind
    return FAULT_CLASSES.get(kind, KernelFault)(report)


class SimWarning(UserWarning):
    """Legal but fragile code: it works under CUDA's rules but is easy to break."""


def format_report(report):
    """Render a fault report as text: a sanitizer-like header, then plain words."""
    lines = [f"========= simcore: {report.get('title', report.get('kind'))}  [{report.get('kind')}]"]
    for loc in report.get("locations", []):
        lines.append(f"=========     at line {loc['line']}: {loc.get('text', '').strip()}"
                     + (f"   ({loc['what']})" if loc.get("what") else ""))
    if report.get("who"):
        lines.append(f"=========     by {report['who']}")
    ctx = []
    if report.get("model"):
        ctx.append(f"model: {report['model']}")
    if report.get("schedule"):
        ctx.append(f"schedule: {report['schedule']}")
    if report.get("launch"):
        ctx.append(f"launch: {report['launch']}")
    if ctx:
        lines.append("=========     " + "; ".join(ctx))
    if report.get("explanation"):
        lines.append("")
        lines.append("What happened: " + report["explanation"])
    if report.get("warps_text"):
        lines.append("")
        lines.append("Where every warp was:")
        lines.extend("  " + w for w in report["warps_text"])
    if report.get("fix"):
        lines.append("")
        lines.append("How to fix it: " + report["fix"])
    return "\n".join(lines)
