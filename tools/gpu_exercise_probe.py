#!/usr/bin/env python3
"""What a real GPU does with each exercise's *starting* kernel.

Every exercise notebook under solutions/ shows its broken starting kernel in a locked demo
cell: ``broken_source = r'''...'''`` followed by one ``try_kernel(broken_source, NAME,
make_args=..., reference=..., n=..., block=...)`` call. This script runs that same launch

  1. on the simulator (every check on): the fault kind and line the student is shown;
  2. on the GPU through CuPy, ``--launches`` times with fresh random inputs (seeds 0, 1, ...),
     in its own process with a time limit (an undefined kernel may hang: the outcome is then
     "hung"), counting launches whose output differs from the numpy reference;
  3. once under ``compute-sanitizer --tool synccheck`` and ``--tool racecheck``.

    python3 tools/gpu_exercise_probe.py --out /tmp/probe            # every exercise
    python3 tools/gpu_exercise_probe.py --out /tmp/probe --only ex02_loop_trip_counts

Writes OUT/exercise_probe.json and OUT/exercise_probe.md (one row per exercise).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.gpu_conformance import find_sanitizer, run_limited  # noqa: E402


# ------------------------------------------------------------------------- notebook cells
def _cells(notebook: Path) -> list[tuple[str, str]]:
    """[(nbgrader grade_id or "", source)] of the notebook's code cells."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [((c.get("metadata") or {}).get("nbgrader", {}).get("grade_id", ""), "".join(c["source"]))
            for c in nb["cells"] if c["cell_type"] == "code"]


def _setup_and_demo(notebook: Path) -> tuple[str, str] | None:
    """(setup cell, demo cell) of an exercise notebook, or None when it has no demo.
    The setup is the cell nbgrader calls "setup" (else the first code cell); the demo is the
    cell that assigns ``broken_source``."""
    cells = _cells(notebook)
    demo = next((src for _, src in cells if re.search(r"^broken_source\s*=", src, re.M)), None)
    if demo is None:
        return None
    setup = next((src for gid, src in cells if gid == "setup"), cells[0][1])
    return setup, demo


def _captured_launch(notebook: Path) -> dict:
    """Run the setup cell, then the demo cell with try_kernel capturing its arguments."""
    setup, demo = _setup_and_demo(notebook)
    namespace: dict = {"__name__": "__probe__"}
    exec(compile(setup, f"{notebook.name}:setup", "exec"), namespace)
    calls = []
    namespace["try_kernel"] = lambda source, name, **kw: calls.append((source, name, kw))
    exec(compile(demo, f"{notebook.name}:demo", "exec"), namespace)
    if not calls:
        raise SystemExit(f"{notebook}: the demo cell calls no try_kernel")
    source, name, kw = calls[0]
    return {"source": source, "name": name, **kw}


# ----------------------------------------------------------------------------- the child
def _outcome(launch: dict, backend: str, seeds: range) -> dict:
    import numpy as np

    import simcore
    from barrier_course.grading.checks import build_case, fresh_args

    kernel = simcore.RawModule(code=launch["source"], backend=backend).get_function(launch["name"])
    names = [p.name for p in kernel.params] if hasattr(kernel, "params") else []
    n, block = launch["n"], launch["block"]
    reference = launch.get("reference") or (lambda args, n, block: {})
    wrong = 0
    for seed in seeds:
        # the launch exactly as try_kernel builds it (seed 0 is the launch the student sees);
        # make_args may return (grid, args), (grid, args, shared_mem) or a dict
        case = build_case(launch["make_args"], reference, n, block, seed)
        args = fresh_args(case)
        opts = {"checks": launch.get("checks", True), "schedule": launch.get("schedule", "lockstep")}
        if launch.get("model"):
            opts["model"] = launch["model"]
        try:
            kernel(case.grid, (case.block,), args, shared_mem=case.shared_mem, **(opts if backend == "sim" else {}))
        except simcore.KernelFault as fault:
            return {"fault": fault.kind, "line": fault.line, "launches": seed - seeds.start + 1}
        for key, want in case.expected.items():
            pos = key if isinstance(key, int) else names.index(key)
            got = np.asarray(args[pos]).reshape(-1)[: np.asarray(want).size]
            if not np.allclose(got.astype(np.float64), np.asarray(want, np.float64).reshape(-1),
                               rtol=1e-5, atol=1e-6, equal_nan=False):
                wrong += 1
                break
    return {"launches": len(seeds), "wrong": wrong}


def child(notebook: Path, backend: str, launches: int) -> None:
    launch = _captured_launch(notebook)
    print("RESULT " + json.dumps(_outcome(launch, backend, range(launches))), flush=True)


# ---------------------------------------------------------------------------- the parent
def _run(notebook: Path, backend: str, launches: int, timeout: float, sanitizer=None, tool=None):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(notebook),
           "--backend", backend, "--launches", str(launches)]
    if sanitizer:
        cmd = [sanitizer, "--tool", tool, "--error-exitcode", "0"] + cmd
    rc, text, seconds = run_limited(cmd, timeout)
    result = {"seconds": round(seconds, 2)}
    if rc is None:
        result["outcome"] = "hung"
    match = re.search(r"^RESULT (.*)$", text, re.M)
    if match:
        result.update(json.loads(match.group(1)))
    elif rc is not None:
        result["outcome"] = f"exit {rc}: " + text.strip().splitlines()[-1][:200] if text.strip() else f"exit {rc}"
    if sanitizer:
        summary = re.search(r"ERROR SUMMARY: (\d+) error", text)
        hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazard", text)
        result["errors"] = int(summary.group(1)) if summary else None
        if hazards:
            result["hazards"] = int(hazards.group(1))
        first = re.search(r"^=+ (?:Barrier error|Race reported|Error|Warning)[^\n]*", text, re.M)
        result["first_report"] = first.group(0).strip("= ").strip()[:160] if first else ""
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--only", default="", help="comma-separated assignment names")
    ap.add_argument("--launches", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--backend", default="sim", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.backend, args.launches)
        return 0
    if args.out is None:
        ap.error("--out is required")
    args.out.mkdir(parents=True, exist_ok=True)
    only = {x for x in args.only.split(",") if x}
    sanitizer = find_sanitizer()
    rows = []
    for notebook in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        name = notebook.parent.name
        if (only and name not in only) or _setup_and_demo(notebook) is None:
            continue
        row = {"exercise": name,
               "simulator": _run(notebook, "sim", 1, args.timeout),
               "gpu": _run(notebook, "cupy", args.launches, args.timeout)}
        for tool in ("synccheck", "racecheck"):
            row[tool] = (_run(notebook, "cupy", 1, 4 * args.timeout, sanitizer, tool)
                         if sanitizer else {"outcome": "compute-sanitizer not found"})
        rows.append(row)
        print(json.dumps(row), flush=True)
    (args.out / "exercise_probe.json").write_text(json.dumps(rows, indent=1))
    lines = ["| exercise | simulator | GPU launches (wrong / hung) | synccheck | racecheck |",
             "|---|---|---|---|---|"]
    for row in rows:
        sim, gpu = row["simulator"], row["gpu"]
        sim_text = f"{sim['fault']} (line {sim.get('line')})" if "fault" in sim else sim.get("outcome", "no fault")
        gpu_text = gpu.get("outcome") or f"{gpu.get('wrong')} wrong of {gpu.get('launches')}"

        def sanitizer_text(r):
            if "errors" not in r:
                return r.get("outcome", "?")
            return f"{r['errors']} errors" + (f", {r['hazards']} hazards" if "hazards" in r else "") + (
                f": {r['first_report']}" if r.get("first_report") else "")
        lines.append(f"| {row['exercise']} | {sim_text} | {gpu_text} | "
                     f"{sanitizer_text(row['synccheck'])} | {sanitizer_text(row['racecheck'])} |")
    (args.out / "exercise_probe.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
