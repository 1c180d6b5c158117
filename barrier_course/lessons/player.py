"""Watch a kernel run: a step-through player of warps, lanes, barriers and shared memory.

    from barrier_course.lessons import player
    p = player.show(kernel, (2,), (64,), (out, x, np.int32(n)))     # runs it, returns the widget
    p                                                              # (display it in Jupyter)

    player.show_source(source, "block_sum", make_args=block_sum_args, n=100, block=64)
                                        # an exercise's kernel as source, its launch from make_args

    kernel(grid, block, args, trace=True)                          # or: from a traced launch
    player.from_launch(kernel.last_launch)

    html = p.snapshot(12)                                          # step 12 as static HTML (handouts)

The frame model (what is on screen at step k) is `simcore.recording.replay`; this module only draws
it, as HTML: the source with each warp's current line marked, a lane grid (blocks x warps x
32 lanes, coloured by state, with `k / n` arrivals next to barrier waits), the shared arrays
coloured by what the current barrier interval read and wrote (hover a cell for the threads),
and the fault report when the launch ended in one (the player then opens at the fault).
The player always runs the kernel on the simulator, even with SIMCORE_BACKEND=cupy.
"""
from __future__ import annotations

import html
import time

import numpy as np

from simcore.recording import replay as R
from simcore.checks.report import lane_ranges

__all__ = ["show", "show_source", "from_launch", "Player", "render_frame", "snapshot_html"]

STATE_CLASS = {R.RUNNING: "run", R.READY: "rdy", R.WAIT_BARRIER: "bar", R.WAIT_WARP: "wsy",
               R.RECONVERGE: "rcv", R.PARKED: "prk", R.EXITED: "ext", R.NO_THREAD: "non"}
MARK_CLASS = {R.READ: "mr", R.WRITE: "mw", R.READ_WRITE: "mrw", R.RACE: "mrace"}
DEFAULT_LANES_SHOWN = 2048     # blocks beyond this many lanes are filtered out when the player opens
MAX_MEMORY_CELLS = 2048        # per shared array and block

CSS = """<style>
.simpl{font-family:sans-serif;font-size:12px;color:#222;max-width:100%;box-sizing:border-box;
 -webkit-print-color-adjust:exact;print-color-adjust:exact}
.simpl .src{font-family:monospace;white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.5}
.simpl .src>div{padding-left:3.1em;text-indent:-3.1em}
.simpl .src .ln{color:#999;display:inline-block;width:2.5em;text-align:right;margin-right:.6em;text-indent:0}
.simpl .src .cur{background:#e3f4e6}
.simpl .src .flt{background:#fde0e0}
.simpl .chip{display:inline-block;border-radius:3px;padding:0 4px;margin-left:4px;font-family:sans-serif;
 font-size:11px;color:#fff;white-space:normal;text-indent:0}
.simpl .grid .row{display:flex;flex-wrap:wrap;align-items:center;min-height:13px;margin:1px 0}
.simpl .grid .lbl{flex:0 0 4.2em;font-family:monospace;font-size:11px}
.simpl .grid .lanes{display:flex;flex:0 1 320px;min-width:0}
.simpl .grid i{display:block;flex:0 1 9px;min-width:2px;height:11px;margin-right:1px}
.simpl .grid i.race{outline:2px solid #c00;outline-offset:-2px}
.simpl .grid .info{margin-left:6px;font-size:11px;white-space:normal}
.simpl .run{background:#2e9d48}.simpl .rdy{background:#a8d5b1}.simpl .bar{background:#f0a030}
.simpl .wsy{background:#9b6fd0}
.simpl .grid i.rdy,.simpl .legend span.rdy{background-image:repeating-linear-gradient(90deg,transparent 0 3px,#1d6a30 3px 4px)}
.simpl .grid i.bar,.simpl .legend span.bar{background-image:repeating-linear-gradient(45deg,transparent 0 2px,#5a3000 2px 3px)}
.simpl .grid i.wsy,.simpl .legend span.wsy{background-image:repeating-linear-gradient(0deg,transparent 0 2px,#2a0060 2px 3px)}
.simpl .rcv{background:#5a9bd5}.simpl .prk{background:#a08060}
.simpl .ext{background:#e2e2e2}.simpl .non{background:#fff;outline:1px dotted #ccc;outline-offset:-1px}
.simpl .mem{display:grid;grid-template-columns:repeat(32,minmax(2px,11px));gap:1px;margin:2px 0 6px 0}
.simpl .mem i{display:block;height:11px;background:#f1f1f1}
.simpl .mem i.mr{background:#6fa8dc}
.simpl .mem i.mw{background:#f6b26b repeating-linear-gradient(45deg,transparent 0 2px,#6a3000 2px 3px)}
.simpl .mem i.mrw{background:#8e7cc3 repeating-linear-gradient(90deg,transparent 0 2px,#2a1060 2px 3px)}
.simpl .mem-legend .lg-mr{background:#6fa8dc}
.simpl .mem-legend .lg-mw{background:#f6b26b repeating-linear-gradient(45deg,transparent 0 2px,#6a3000 2px 3px)}
.simpl .mem-legend .lg-mrw{background:#8e7cc3 repeating-linear-gradient(90deg,transparent 0 2px,#2a1060 2px 3px)}
.simpl .mem-legend .lg-mrace{background:#cc0000}
.simpl .mem i.mrace{background:#cc0000;outline:2px solid #000;outline-offset:-1px}
.simpl .legend span{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;vertical-align:middle}
.simpl .hdr{font-weight:bold;margin:4px 0}
.simpl .note{color:#a00;margin:2px 0}
.simpl .report{font-size:12px;max-width:48em;white-space:normal;overflow-wrap:anywhere}
.simpl .report pre{white-space:pre-wrap;font-size:11px}
.simpl .pane{display:flex;flex-wrap:wrap;align-items:flex-start;gap:6px 14px}
.simpl .pane>div{flex:1 1 300px;min-width:0;max-width:100%}
.simpl,.simpl div{text-align:left}
</style>"""

SIMULATOR_NOTE = "The player always runs the kernel on the simulator (copies of your arrays)."


# ===================================================================== drawing (pure functions)
def _esc(x):
    return html.escape(str(x), quote=True)


def _visible(rec, frame, blocks, warps):
    """Which (block index in the wave, warp) pairs are drawn."""
    nblk = frame.state.shape[0]
    bsel = [b for b in range(nblk) if blocks is None or frame.first_block + b in blocks]
    lo, hi = warps if warps is not None else (0, rec.wpb - 1)
    return bsel, [w for w in range(rec.wpb) if lo <= w <= hi]


def render_source(rec, frame, bsel, wsel):
    """The kernel's lines, each with chips for the warps whose lanes are on it."""
    per_line = {}     # line -> {state: [(block, warp, lanes)]}
    for b in bsel:
        for w in wsel:
            st = frame.state[b, w]
            ln = frame.lane_line[b, w]
            for code in (R.RUNNING, R.WAIT_BARRIER, R.WAIT_WARP, R.RECONVERGE, R.PARKED, R.READY):
                sel = st == code
                if not sel.any():
                    continue
                for line in np.unique(ln[sel]):
                    n = int((sel & (ln == line)).sum())
                    per_line.setdefault(int(line), {}).setdefault(code, []).append((frame.first_block + b, w, n))
    fault_lines = set()
    if frame.event == "fault" and rec.fault is not None:
        fault_lines = set(rec.fault.report.get("lines") or [])
    lines = rec.source_lines
    nblocks_total = rec.launch.num_blocks if rec.launch is not None else 1
    first, last = _kernel_span(rec)
    out = ['<div class="src">']
    for i in range(first, last + 1):
        text = lines[i - 1] if i - 1 < len(lines) else ""
        cls = "flt" if i in fault_lines else ("cur" if i in frame.lines and frame.event == "step" else "")
        chips = []
        for code, items in sorted(per_line.get(i, {}).items()):
            chips.append(_chip(code, items, frame, nblocks_total > 1))
        out.append(f'<div class="{cls}" data-line="{i}"><span class="ln">{i}</span>{_esc(text)}{"".join(chips)}</div>')
    out.append("</div>")
    return "".join(out)


def _kernel_span(rec):
    prog = rec.prog
    used = [ln for b in prog.blocks for ln in b.lines] + [s.line for s in prog.sync_sites]
    used = [x for x in used if x]
    if not used:
        return 1, len(rec.source_lines)
    first = min(used)
    # start at the kernel's signature: walk back to the line holding __global__
    for i in range(first, 0, -1):
        if "__global__" in rec.source_lines[i - 1]:
            first = i
            break
    last = max(used)
    depth = 0
    for i in range(first, len(rec.source_lines) + 1):     # on to the kernel's closing brace
        text = rec.source_lines[i - 1]
        depth += text.count("{") - text.count("}")
        if i >= last and depth <= 0 and "}" in text:
            last = i
            break
    return first, last


def _chip(code, items, frame, name_block):
    """One label for the warps in one state on one line: 'w0-2, w3 (4 lanes) at barrier 0: 100/256'."""
    by_block = {}
    for b, w, n in items:
        by_block.setdefault(b, []).append((w, n))
    parts = []
    for b, ws in by_block.items():
        whole = [w for w, n in ws if n == 32]
        partial = [f"w{w} ({n} lane{'s' if n > 1 else ''})" for w, n in ws if n < 32]
        names = ([f"w{lane_ranges(whole, sep=',')}"] if whole else []) + partial
        parts.append((f"b{b} " if name_block else "") + ", ".join(names))
    label = "; ".join(parts)
    if code == R.WAIT_BARRIER:
        arr = [f"barrier {bid}: {k}/{n}" if n >= 0 else f"barrier {bid}: {k} arrived"
               for (b, bid), (k, n) in sorted(frame.arrivals.items()) if b in by_block]
        label += " waiting" + (" at " + ", ".join(dict.fromkeys(arr)) if arr else "")
    else:
        label += {R.RUNNING: " run", R.WAIT_WARP: " at a warp sync", R.RECONVERGE: " reconverging",
                  R.PARKED: " parked", R.READY: " ready"}[code]
    return (f'<span class="chip {STATE_CLASS[code]}" title="{_esc(R.STATE_NAMES[code])}">{_esc(label)}</span>')


def render_lanes(rec, frame, bsel, wsel):
    """Blocks x warps x 32 lanes, one coloured cell per lane; barrier arrivals beside the row."""
    if not bsel:
        nblk = frame.state.shape[0]
        return (f'<div class="note">The blocks chosen in "show" do not run at this step: blocks '
                f'{frame.first_block}-{frame.first_block + nblk - 1} do (the simulator runs a big grid in '
                "waves of blocks).</div>")
    race_slots = set()
    if frame.race and frame.race.get("threads"):
        race_slots = {(frame.race["block"], t) for t in frame.race["threads"]}
    out = ['<div class="grid">']
    for b in bsel:
        gb = frame.first_block + b
        out.append(f'<div class="hdr">block {gb}</div>')
        for w in wsel:
            st = frame.state[b, w]
            ln = frame.lane_line[b, w]
            bar = frame.barrier[b, w]
            cells = []
            for lane in range(32):
                code = int(st[lane])
                t = w * 32 + lane
                what = R.STATE_NAMES[code]
                if code == R.WAIT_BARRIER:
                    what += f" {int(bar[lane])} (line {int(ln[lane])})"
                elif code not in (R.EXITED, R.NO_THREAD) and ln[lane]:
                    what += f" (line {int(ln[lane])})"
                cls = STATE_CLASS[code] + (" race" if (gb, t) in race_slots else "")
                name = rec.thread_name(t) if code != R.NO_THREAD else f"lane {lane}"
                cells.append(f'<i class="{cls}" title="{_esc(name)}: {_esc(what)}"></i>')
            info = []
            waiting = st == R.WAIT_BARRIER
            for bid in np.unique(bar[waiting]):
                k, n = frame.arrivals.get((gb, int(bid)), (0, 0))
                text = f"barrier {int(bid)}: {k}/{n}" if n >= 0 else f"barrier {int(bid)}: {k} arrived"
                at = waiting & (bar == bid)
                sites = np.unique(ln[at])
                if len(sites) > 1:      # one warp waiting at two call sites of one barrier: say where
                    text += " (" + ", ".join(f"{int((at & (ln == x)).sum())} at l.{int(x)}" for x in sites) + ")"
                info.append(text)
            out.append(f'<div class="row"><span class="lbl">warp {w}</span>'
                       f'<span class="lanes">{"".join(cells)}</span>'
                       f'<span class="info">{_esc("; ".join(info))}</span></div>')
    out.append("</div>")
    return "".join(out)


def render_memory(rec, frame, bsel):
    """Each shared array of each visible block: cells read / written in the current barrier
    interval; the title of a cell names the threads that touched it."""
    shown = {frame.first_block + b for b in bsel}
    out = []
    for view in frame.shared:
        if view.block not in shown:
            continue
        touched = np.flatnonzero(view.marks)
        top = int(touched.max()) + 1 if len(touched) else 0
        n = min(view.size, max(32, -(-top // 32) * 32), MAX_MEMORY_CELLS)
        out.append(f'<div class="hdr">{_esc(view.name)} (block {view.block})</div><div class="mem">')
        for i in range(n):
            m = int(view.marks[i])
            if not m:
                out.append(f'<i title="{_esc(view.name)}[{i}]"></i>')
                continue
            who = "; ".join(f"{x.kind} by {rec.thread_name(x.thread)} at line {x.line}"
                            for x in view.touches.get(i, [])[:8])
            more = len(view.touches.get(i, [])) - 8
            if more > 0:
                who += f"; and {more} more"
            tag = " RACE" if m == R.RACE else ""
            out.append(f'<i class="{MARK_CLASS[m]}" title="{_esc(view.name)}[{i}]{tag}: {_esc(who)}"></i>')
        out.append("</div>")
        if n < view.size:
            out.append(f'<div>elements {n} to {view.size - 1} not shown'
                       f'{" (none touched)" if top <= n else ""}</div>')
    if not out:
        out.append("<div>no shared memory</div>")
    legend = ('<div class="legend mem-legend">in this barrier interval:<span class="lg-mr"></span>read'
              '<span class="lg-mw"></span>written<span class="lg-mrw"></span>both'
              '<span class="lg-mrace"></span>race</div>')
    return legend + "".join(out)


def render_report(rec, frame):
    if rec.fault is None:
        return ""
    rep = rec.fault.report
    locs = "".join(f"<li>line {_esc(x['line'])}: <code>{_esc(x.get('text', ''))}</code> {_esc(x.get('what', ''))}</li>"
                   for x in rep.get("locations", []))
    race = ""
    if frame.race:
        race = (f"<p>Race cell: {_esc(frame.race['array'])}[{frame.race['index']}] in block {frame.race['block']}, "
                f"touched by {_esc(_thread_list(rec, frame.race['threads']))}.</p>")
    where = "".join(f"<div>{_esc(t)}</div>" for t in rep.get("warps_text", [])[:12])
    when = "" if frame.event == "fault" else \
        f'<div class="note">The launch ends in this fault at step {rec.fault_frame}:</div>'
    return (f'<div class="report">{when}<div class="hdr" style="color:#a00">{_esc(rep.get("title", rec.fault.kind))}'
            f' [{_esc(rep.get("kind", ""))}]</div><ul>{locs}</ul>'
            f'<p><b>What happened:</b> {_esc(rep.get("explanation", ""))}</p>{race}'
            f'<p><b>How to fix it:</b> {_esc(rep.get("fix", ""))}</p>'
            f'<details><summary>where every warp was</summary>{where}</details></div>')


def _thread_list(rec, threads, most=6):
    """Threads by name, a long list as ranges of thread indices (it would run for screens)."""
    threads = sorted(int(t) for t in threads)
    if len(threads) <= most:
        return ", ".join(rec.thread_name(t) for t in threads)
    return f"{len(threads)} threads: {lane_ranges(threads)}"


def _lines_run(frame):
    """'line 7 runs' / 'lines 7, 8 and 10 run': every line of the code the step ran."""
    lines = sorted(set(frame.lines or [frame.line]))
    if len(lines) <= 1:
        return f"line {lines[0] if lines else frame.line} runs"
    return "lines " + ", ".join(str(x) for x in lines[:-1]) + f" and {lines[-1]} run"


def render_header(rec, frame):
    launch = rec.launch
    what = {"step": f"step {frame.index}: {_lines_run(frame)}",
            "barrier_release": f"step {frame.index}: every arrival is in, the barrier at line {frame.line} releases",
            "end": f"step {frame.index}: the end of the launch",
            "fault": f"step {frame.index}: THE FAULT"}[frame.event]
    g = "x".join(str(v) for v in launch.grid if v > 1) or "1"
    b = "x".join(str(v) for v in launch.block if v > 1) or "1"
    head = (f'<div class="hdr">{_esc(launch.kernel)} &lt;&lt;&lt;{g}, {b}&gt;&gt;&gt; '
            f'schedule={_esc(launch.schedule)} — {_esc(what)} (last step: {len(rec) - 1})</div>')
    notes = [frame.note] if frame.note else []
    if rec.truncated and not frame.note:
        notes.append(rec.cut_note)
    counts = [f"{frame.count(c)} {R.STATE_NAMES[c]}" for c in (R.RUNNING, R.WAIT_BARRIER, R.WAIT_WARP,
                                                             R.RECONVERGE, R.PARKED, R.EXITED) if frame.count(c)]
    return head + "".join(f'<div class="note">{_esc(n)}</div>' for n in notes) + \
        f'<div>lanes: {_esc(", ".join(counts))}</div>'


def render_frame(rec, k, blocks=None, warps=None):
    """The whole view of frame k as one HTML fragment (what the widget shows, in one piece)."""
    frame = rec.frame(k)
    bsel, wsel = _visible(rec, frame, blocks, warps)
    report = render_report(rec, frame)
    return (CSS + '<div class="simpl">' + render_header(rec, frame) +
            # side by side where the page is wide enough, one under the other on a narrow page
            # (a printed handout) rather than cut off
            '<div class="pane"><div>' + render_source(rec, frame, bsel, wsel) + "</div><div>" +
            render_lanes(rec, frame, bsel, wsel) + render_memory(rec, frame, bsel) + "</div>" +
            (f'<div>{report}</div>' if report else "") + "</div>" + _state_legend() + "</div>")


def _state_legend():
    return ('<div class="legend">' + "".join(
        f'<span class="{STATE_CLASS[c]}"></span>{_esc(R.STATE_NAMES[c])}' for c in STATE_CLASS) + "</div>")


def snapshot_html(rec, k, blocks=None, warps=None, title=None):
    """A standalone HTML page of frame k (for handouts and screenshots)."""
    body = render_frame(rec, k, blocks, warps)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_esc(title or rec.launch.kernel)}</title>"
            f"</head><body style='background:#fff'>{body}</body></html>")


# ===================================================================== running a launch for the player
def record(kernel, grid, block, args, shared_mem=0, **launch_options):
    """Run `kernel` on the simulator with a recording; -> simcore.recording.replay.Recording (fault attached)."""
    import simcore
    from simcore.errors import KernelFault
    if isinstance(kernel, str):
        raise TypeError("player.show needs a compiled kernel, not its source: use "
                        "player.show_source(source, kernel_name, make_args=..., n=..., block=...), or "
                        "simcore.RawModule(code=source).get_function(kernel_name)")
    if not isinstance(kernel, simcore.Kernel):
        raise TypeError(f"player.show needs a kernel from simcore.RawModule(...).get_function(name), "
                        f"not {type(kernel).__name__}")
    sim = kernel
    if kernel.module.backend != "sim":
        sim = simcore.RawModule(code=kernel.module.code, options=kernel.module.options,
                                backend="sim").get_function(kernel.name)
    launch_options.pop("trace", None)
    copies = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fault = None
    try:
        sim(grid, block, copies, shared_mem=shared_mem, trace=True, **launch_options)
    except KernelFault as f:
        fault = f
    launch = sim.last_launch
    if launch is None or launch.trace is None:
        raise ValueError("the launch was not recorded")     # (an error before the launch started)
    rec = launch.trace.replay
    rec.fault = fault
    return rec


def show(kernel, grid, block, args, shared_mem=0, **launch_options):
    """Run the kernel on the simulator and return a Player widget over the recorded launch.
    `launch_options` are those of a launch: checks=, schedule=, model=, seed=, max_steps=."""
    return Player(record(kernel, grid, block, args, shared_mem=shared_mem, **launch_options))


NOTHING_TO_SHOW = "Nothing to show yet."


def show_source(source, kernel_name, *, make_args, n, block, seed=0, options=(), **launch_options):
    """The player over one launch of a kernel given as CUDA source: an exercise's "watch it" cell.

    The launch is built as the exercise's tests build theirs: ``make_args(n, block, rng)``
    returns ``(grid, args)`` or ``(grid, args, shared_mem)`` (see
    :func:`barrier_course.grading.checks.check_kernel`). ``block`` is the threads per block, or a
    function ``block(source, kernel_name)`` for kernels that choose their own block size (e.g.
    :func:`barrier_course.grading.speed_grading.chosen_block_size`). ``launch_options`` as for
    :func:`show` (``schedule=``, ``model=``, ``checks=``, ...).

    Never raises for a student's mistake: an unfinished answer (the ``__simcore_todo`` stub)
    prints one "Nothing to show yet" line, a kernel that does not compile prints the compiler's
    report, and a launch that cannot start prints why; each returns None. A kernel that faults
    while running opens the player at the fault.
    """
    import simcore
    from ..grading.checks import KernelCheckFailed, build_case, fresh_args, refuse_unfinished
    if not isinstance(source, str):
        print(f"{NOTHING_TO_SHOW} The player needs the kernel's CUDA source as a string, "
              f"not {type(source).__name__}.")
        return None
    try:
        refuse_unfinished(source, kernel_name)
        if callable(block):
            block = block(source, kernel_name)
    except NotImplementedError as exc:
        reason = str(exc).split("\n")[0].replace("Exercise not done yet: ", "")
        print(f"{NOTHING_TO_SHOW} {reason[:1].upper()}{reason[1:]}")
        return None
    except KernelCheckFailed as exc:
        print(exc)
        return None
    try:
        kernel = simcore.RawModule(code=source, options=tuple(options), backend="sim").get_function(kernel_name)
    except simcore.CompileError as exc:
        print(f"Kernel '{kernel_name}' does not compile:\n{exc}")
        return None
    case = build_case(make_args, lambda args, n, block: {}, n, block, seed)
    try:
        return show(kernel, case.grid, (case.block,), fresh_args(case), shared_mem=case.shared_mem,
                    **launch_options)
    except simcore.LaunchError as exc:
        print(f"The launch did not start: {exc}")
        return None


def from_launch(launch):
    """A Player over a launch made with trace=True (e.g. `kernel.last_launch`)."""
    trace = getattr(launch, "trace", None)
    if trace is None or not hasattr(trace, "replay"):
        raise ValueError("this launch was not recorded: launch the kernel with trace=True (on the simulator), "
                         "or use player.show(kernel, grid, block, args)")
    rec = trace.replay
    if rec.fault is None and getattr(launch, "fault", None) is not None:
        rec.fault = launch.fault
    return Player(rec)


# ===================================================================== the widget
class Player:
    """The step-through player. Display `player.widget` (or the Player itself in Jupyter)."""

    def __init__(self, rec, blocks=None, warps=None):
        import ipywidgets as W
        self.rec = rec
        n = max(1, len(rec))
        t0 = time.perf_counter()
        launch = rec.launch
        nblocks = launch.num_blocks if launch is not None else 1
        if blocks is None and nblocks * rec.tpb > DEFAULT_LANES_SHOWN:
            blocks = list(range(max(1, DEFAULT_LANES_SHOWN // max(1, rec.tpb))))
        self.blocks = blocks
        self.warps = warps
        # play / pause from Python, one drawn step at a time at the chosen speed: a pause keeps
        # the step; "step 0" is the separate way back to the start
        self.play_button = W.ToggleButton(value=False, description="▶ play", tooltip="play / pause",
                                          layout=W.Layout(width="auto"))
        self.reset_button = W.Button(description="|◀ step 0", layout=W.Layout(width="auto"))
        self.slider = W.IntSlider(value=0, min=0, max=n - 1, description="step", continuous_update=False,
                                  layout=W.Layout(width="420px", max_width="100%"))
        self.back_button = W.Button(description="◀ step back", layout=W.Layout(width="auto"))
        self.step_button = W.Button(description="step ▶", layout=W.Layout(width="auto"))
        self.barrier_button = W.Button(description="next barrier", layout=W.Layout(width="auto"))
        self.divergence_button = W.Button(description="next divergence", layout=W.Layout(width="auto"))
        self.fault_button = W.Button(description="the fault", button_style="danger", layout=W.Layout(width="auto"),
                                     disabled=rec.fault is None)
        self.speed = W.IntSlider(value=4, min=1, max=30, description="steps/s",
                                 layout=W.Layout(width="260px", max_width="100%"))
        options = [("all blocks", -1)] + [(f"block {b}", b) for b in range(min(nblocks, 256))]
        # a launch of one block has nothing to filter: the control stays, greyed out, so the
        # layout is the same for every launch
        self.block_filter = W.Dropdown(options=options, value=-1 if blocks is None else blocks[0],
                                       description="show", disabled=nblocks <= 1,
                                       layout=W.Layout(width="180px", max_width="100%"))
        if blocks is not None and len(blocks) > 1:
            self.block_filter.options = options + [(f"blocks {blocks[0]}-{blocks[-1]}", -2)]
            self.block_filter.value = -2
        self.warp_filter = W.IntRangeSlider(value=(0, max(0, rec.wpb - 1)), min=0, max=max(0, rec.wpb - 1),
                                            description="warps", layout=W.Layout(width="300px", max_width="100%"))
        self._play_task = None
        self.header = W.HTML()
        self.source = W.HTML()
        self.lanes = W.HTML()
        self.memory = W.HTML()
        self.report = W.HTML()
        self.message = W.HTML(f"<i>{SIMULATOR_NOTE}</i>")
        self.back_button.on_click(lambda _: self.go(self.k - 1))
        self.step_button.on_click(lambda _: self.go(self.k + 1))
        self.barrier_button.on_click(lambda _: self.next_barrier())
        self.divergence_button.on_click(lambda _: self.next_divergence())
        self.fault_button.on_click(lambda _: self.go_fault())
        self.slider.observe(lambda ch: self._draw(ch["new"]), names="value")
        self.play_button.observe(lambda ch: self._play_changed(ch["new"]), names="value")
        self.reset_button.on_click(lambda _: self.reset())
        self.block_filter.observe(lambda ch: self._filter(), names="value")
        self.warp_filter.observe(lambda ch: self._filter(), names="value")
        # every row wraps, and the three panes (source, lanes and memory, report) sit side by
        # side only where there is room for them: nothing needs a horizontal scroll bar
        wrap = dict(flex_flow="row wrap", max_width="100%")
        controls = W.HBox([self.play_button, self.reset_button, self.back_button, self.step_button,
                           self.barrier_button, self.divergence_button, self.fault_button],
                          layout=W.Layout(**wrap))
        filters = W.HBox([self.slider, self.speed, self.block_filter, self.warp_filter],
                         layout=W.Layout(**wrap))
        style = W.HTML(CSS)
        pane = dict(flex="1 1 320px", min_width="0", max_width="100%")
        self.source.layout = W.Layout(**pane)
        self.report.layout = W.Layout(flex="1 1 300px", min_width="0", max_width="100%")
        body = W.HBox([W.Box([self.source], layout=W.Layout(max_height="640px", overflow="hidden auto",
                                                            **pane)),
                       W.VBox([self.lanes, self.memory], layout=W.Layout(**pane)),
                       self.report], layout=W.Layout(align_items="flex-start", **wrap))
        self.widget = W.VBox([style, self.header, controls, filters, self.message, body],
                             layout=W.Layout(max_width="100%"))
        self.widget.add_class("simpl")
        # stable names for the page (the browser test, a course's own CSS): player-<part>
        for part, name in ((self.widget, "player"), (self.header, "player-step-label"),
                           (self.back_button, "player-step-back"), (self.step_button, "player-step"),
                           (self.barrier_button, "player-next-barrier"),
                           (self.divergence_button, "player-next-divergence"),
                           (self.fault_button, "player-fault"), (self.slider, "player-slider"),
                           (self.play_button, "player-play"), (self.reset_button, "player-reset"),
                           (self.speed, "player-speed"), (self.block_filter, "player-blocks"),
                           (self.warp_filter, "player-warps"), (self.message, "player-message"),
                           (self.source, "player-source"), (self.lanes, "player-grid"),
                           (self.memory, "player-memory"), (self.report, "player-report")):
            part.add_class(name)
        # a handout (nbconvert) keeps the static form: the view at the step shown when displayed
        from .widgets import show_as_text
        show_as_text(self.widget, self.describe, self.static_view)
        self.k = -1
        start = rec.fault_frame if rec.fault is not None and len(rec) else 0
        self.go(start if start is not None else 0)
        self.open_seconds = time.perf_counter() - t0

    # ---- navigation
    def go(self, k):
        if not len(self.rec):
            self.header.value = "<b>nothing was recorded</b>"
            return
        k = max(0, min(len(self.rec) - 1, int(k)))
        if self.slider.value != k:
            self.slider.value = k          # draws through the observer
        if self.k != k:
            self._draw(k)

    def _say(self, text):
        self.message.value = f'<b class="player-note">{_esc(text)}</b>'

    def next_barrier(self):
        k = self.rec.next_barrier(self.k)
        if k is None:
            self._say(f"No barrier releases after step {self.k}: the player stays here.")
            return
        self.go(k)

    def next_divergence(self):
        k = self.rec.next_divergence(self.k)
        if k is None:
            self._say(f"No warp diverges after step {self.k}: the player stays here.")
            return
        self.go(k)

    def reset(self):
        """Back to step 0 (and pause)."""
        self.play_button.value = False
        self.go(0)

    def _play_changed(self, playing):
        self.play_button.description = "❚❚ pause" if playing else "▶ play"
        if not playing:
            return                              # the loop sees it and stops; the step stays
        import asyncio
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:                    # no kernel event loop (a plain script)
            self._say("Play needs a running Jupyter kernel: use step ▶.")
            self.play_button.value = False
            return
        if self._play_task is None or self._play_task.done():
            self._play_task = loop.create_task(self._play_loop())

    async def _play_loop(self):
        """Step by step at ``speed`` steps per second, each step drawn before the next: none
        is skipped. From the last step, play starts again at step 0."""
        import asyncio
        try:
            if self.k >= len(self.rec) - 1:
                self.go(0)
            while self.play_button.value and self.k < len(self.rec) - 1:
                await asyncio.sleep(1.0 / max(1, self.speed.value))
                if not self.play_button.value:
                    break
                self.go(self.k + 1)
        finally:
            self.play_button.value = False

    def go_fault(self):
        if self.rec.fault_frame is None:
            self.message.value = "<i>this launch ended without a fault</i>"
            return
        self.go(self.rec.fault_frame)

    def _filter(self):
        v = self.block_filter.value
        if v == -1:
            self.blocks = None
        elif v >= 0:
            self.blocks = [v]
        self.warps = tuple(self.warp_filter.value)
        k, self.k = self.k, -1
        self._draw(k)

    def _draw(self, k):
        if k == self.k:
            return
        self.k = k
        rec = self.rec
        frame = rec.frame(k)
        self.frame = frame
        bsel, wsel = _visible(rec, frame, self.blocks, self.warps)
        self.header.value = '<div class="simpl">' + render_header(rec, frame) + "</div>"
        self.source.value = '<div class="simpl">' + render_source(rec, frame, bsel, wsel) + "</div>"
        self.lanes.value = '<div class="simpl">' + render_lanes(rec, frame, bsel, wsel) + _state_legend() + "</div>"
        self.memory.value = '<div class="simpl">' + render_memory(rec, frame, bsel) + "</div>"
        self.report.value = '<div class="simpl">' + render_report(rec, frame) + "</div>"
        self.message.value = f"<i>{SIMULATOR_NOTE}</i>"

    # ---- static pictures
    def describe(self):
        """One line for where no widget can be shown: which launch, which step, the fault."""
        rec = self.rec
        name = rec.launch.kernel if rec.launch is not None else "the kernel"
        if not len(rec):
            return f"step-through player of {name}: nothing was recorded"
        text = f"step-through player of {name}, at step {self.k} of {len(rec) - 1}"
        if rec.fault is not None:
            text += f"; the launch ends in a fault at step {rec.fault_frame}: " \
                    f"{rec.fault.report.get('title', rec.fault.kind)}"
        return text

    def static_view(self):
        """The current step drawn as one HTML fragment (what a handout shows for the widget)."""
        if not len(self.rec):
            return ""
        return render_frame(self.rec, self.k, self.blocks, self.warps)

    def snapshot(self, step=None):
        """Frame `step` (default: the current one) as a standalone HTML page: the same view."""
        return snapshot_html(self.rec, self.k if step is None else step, self.blocks, self.warps)

    def save_snapshot(self, path, step=None):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.snapshot(step))
        return path

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)

    def __repr__(self):
        return f"<Player over {self.rec!r}, at step {self.k}>"
