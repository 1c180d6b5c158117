#!/usr/bin/env python3
"""Run the conformance corpus on a real GPU and under compute-sanitizer, next to simcore.

For every entry of conformance/corpus.py:
  1. simcore's verdict (simulator, every check on);
  2. the kernel on the GPU through CuPy, in its own process with a time limit (undefined
     kernels may hang: the process is killed and the outcome is "hung"); its outputs are
     compared with the simulator's (defined kernels) and with the numpy reference, or with
     the intended result for undefined kernels that have one;
  3. the same GPU run under ``compute-sanitizer --tool synccheck`` and ``--tool racecheck``
     (optionally ``memcheck``), each in its own process with a time limit; the error and
     hazard counts are parsed from the sanitizer's summary.
Results: OUT/h200.json (every field), OUT/h200.md (a table and one sentence per
disagreement), OUT/raw/ (per-entry files; runs with --entries add to them), and the table on
stdout.

    python3 tools/gpu_conformance.py --out conformance/results            # everything
    python3 tools/gpu_conformance.py --out conformance/results --entries reverse_tile,war_race
    python3 tools/gpu_conformance.py --out /tmp/r --sim-only               # no GPU needed

Needs: CuPy and an NVIDIA GPU, compute-sanitizer (CUDA toolkit) for the sanitizer columns,
and simcore's own requirements (numpy, pycparser) for the simulator column.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from conformance import corpus, runner  # noqa: E402
from simcore.compare import array_difference, compare_arrays  # noqa: E402

RUN_ONE = ROOT / "tools" / "run_one.py"
GLOBAL_RACE_ENTRIES = {"global_cross_block", "global_race_in_block"}


# ----------------------------------------------------------------------------- processes
def run_limited(cmd, timeout, log_path=None):
    """Run cmd in its own process group; kill the whole group after ``timeout`` seconds.
    -> (returncode or None when killed, combined output, seconds)."""
    t0 = time.time()
    out = open(log_path, "w+") if log_path else subprocess.PIPE
    try:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True, cwd=str(ROOT))
        try:
            p.wait(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            rc = None
        if log_path:
            out.seek(0)
            text = out.read()
        else:
            text = p.stdout.read() if p.stdout else ""
    finally:
        if log_path:
            out.close()
    return rc, text, time.time() - t0


def find_sanitizer():
    for cand in (os.environ.get("COMPUTE_SANITIZER"), shutil.which("compute-sanitizer"),
                 "/usr/local/cuda/bin/compute-sanitizer",
                 "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if cand and Path(cand).is_file():
            return cand
    return None


def read_result(raw: Path, name: str, tag: str):
    j = raw / f"{name}.{tag}.json"
    if not j.exists():
        return None, None
    res = json.loads(j.read_text())
    npz = raw / f"{name}.{tag}.npz"
    args = None
    if npz.exists():
        with np.load(npz) as z:
            args = {int(k[3:]): z[k] for k in z.files}
    return res, args


# Why simcore calls a kernel defined although a sanitizer reports hazards in it.
DEFINED_REMARKS = {
    "x_warp_specialized": (
        "Every pair of accesses it reports is ordered through a chain of two named barriers: a "
        "producer writes buf[0] before `bar.arrive 1`, the consumers' `bar.sync 1` completes that "
        "phase, the consumers' `bar.arrive 2` and the producers' `bar.sync 2` complete the next, "
        "and only then does another producer read the element. Barrier phases order memory "
        "transitively (PTX memory model: causality order), and the output matched on every run; "
        "racecheck evidently pairs only the two threads' own barrier instructions and does not "
        "follow the chain. simcore orders accesses by barrier epochs, which do follow it."),
}


# ----------------------------------------------------------------------------- sanitizer
_ERR = re.compile(r"ERROR SUMMARY:\s*(\d+)\s+error")
_RACE = re.compile(r"RACECHECK SUMMARY:\s*(\d+)\s+hazards? displayed\s*\((\d+)\s+errors?,\s*(\d+)\s+warn")
_FIRST = re.compile(r"^=+\s+(.*(?:Barrier error|Race reported|[Hh]azard|Invalid|Error:|"
                    r"Program hit|error detected|Divergent).*)$", re.M)


def parse_sanitizer(text: str):
    info = {"errors": None, "hazards": None, "first": []}
    m = _ERR.search(text)
    if m:
        info["errors"] = int(m.group(1))
    m = _RACE.search(text)
    if m:
        info["hazards"] = int(m.group(1))
        if info["errors"] is None:      # racecheck's summary line carries its error count
            info["errors"] = int(m.group(2))
    seen = []
    for line in _FIRST.findall(text):
        line = line.strip()
        if line not in seen:
            seen.append(line)
        if len(seen) == 3:
            break
    info["first"] = seen
    return info


def sanitizer_cell(s):
    if s is None:
        return "-"
    if s["outcome"] != "completed":
        return s["outcome"]
    n = s.get("errors")
    h = s.get("hazards")
    if n is None and h is None:
        return "?"
    text = f"{n if n is not None else '?'} err"
    if h is not None and h != n:
        text += f", {h} hz"
    return text


# ----------------------------------------------------------------------------- one entry
def compare(expected, got, e, other):
    if expected is None or got is None:
        return None
    bad, total = 0, 0
    msgs = []
    for i, want in expected.items():
        if i not in got:
            continue
        g = got[i]
        want = np.asarray(want, dtype=g.dtype)
        rtol, atol = max(e.rtol, 1e-5), max(e.atol, 1e-6)
        diff = array_difference(g, want, rtol=rtol, atol=atol)
        bad += diff.wrong
        total += diff.total
        if not diff.ok:
            msgs.append(compare_arrays(f"argument {i}", g, want, rtol=rtol, atol=atol, other=other)
                        .replace("sim=", "gpu="))
    return {"equal": bad == 0, "wrong": bad, "total": total, "message": "; ".join(msgs)[:600]}


def run_entry(e, a, raw: Path, sanitizer):
    row = {"name": e.name, "kernel": e.kernel, "expected": e.expect}
    py = sys.executable
    # 1. simulator
    rc, text, secs = run_limited([py, str(RUN_ONE), e.name, "--backend", "sim", "--out", str(raw)],
                                 a.sim_timeout)
    sim, sim_args = read_result(raw, e.name, "sim")
    if rc is None:
        row["sim"] = {"verdict": "timeout", "detail": f"no answer in {a.sim_timeout} s"}
    elif sim is None:
        row["sim"] = {"verdict": "error", "detail": text[-2000:]}
    else:
        row["sim"] = {"verdict": sim["verdict"], "detail": sim["detail"][:1500],
                      "seconds": sim["seconds"]}
    if a.sim_only:
        return row
    # 2. GPU
    rc, text, secs = run_limited([py, str(RUN_ONE), e.name, "--backend", "cupy", "--out", str(raw)],
                                 a.timeout)
    gpu, gpu_args = read_result(raw, e.name, "cupy")
    if rc is None:
        g = {"outcome": "hung", "detail": f"killed after {a.timeout} s"}
    elif gpu is None:
        g = {"outcome": "error", "detail": text[-2000:]}
    else:
        g = {"outcome": {"completed": "completed", "launch_error": "error",
                         "compile_error": "compile_error"}.get(gpu["status"], "error"),
             "detail": gpu["detail"][:1500]}
    g["seconds"] = round(secs, 1)
    if g["outcome"] == "completed":
        if row["sim"]["verdict"] in ("ok", "warning") and sim_args is not None:
            g["vs_sim"] = compare(sim_args, gpu_args, e, "sim")
        ref = runner.expected_outputs(e) if e.defined else runner.expected_outputs(e, True)
        if ref is not None:
            g["vs_reference" if e.defined else "vs_intended"] = compare(ref, gpu_args, e, "ref")
    row["gpu"] = g
    # 3. sanitizers
    for tool in a.tools:
        if outcome_hung(g) and not a.sanitize_hung:
            row[tool] = {"outcome": "skipped", "detail": "the plain GPU run hung"}
            continue
        if sanitizer is None:
            row[tool] = {"outcome": "n/a", "detail": "compute-sanitizer not found"}
            continue
        cmd = [sanitizer, "--tool", tool]
        if tool == "racecheck":
            cmd += ["--racecheck-report", "hazard"]
        cmd += [py, str(RUN_ONE), e.name, "--backend", "cupy", "--out", str(raw), "--tag", tool]
        rc, text, secs = run_limited(cmd, a.sanitizer_timeout, log_path=raw / f"{e.name}.{tool}.log")
        res, _ = read_result(raw, e.name, tool)
        s = parse_sanitizer(text)
        if rc is None:
            s["outcome"] = "hung"
        elif res is None:
            s["outcome"] = "error"
            s["detail"] = text[-1500:]
        elif res["status"] != "completed":
            s["outcome"] = "completed" if s["errors"] is not None else "error"
            s["launch"] = res["status"]
        else:
            s["outcome"] = "completed"
        s["seconds"] = round(secs, 1)
        row[tool] = s
    row["notes"] = explain(row)
    return row


def outcome_hung(g):
    return g.get("outcome") == "hung"


# ----------------------------------------------------------------------------- explanations
def _n(s, key="errors"):
    if not s or s.get("outcome") != "completed":
        return None
    return s.get(key) if s.get(key) is not None else s.get("errors")


def explain(row):
    """One sentence per disagreement between simcore, the corpus, the GPU, the sanitizers."""
    notes = []
    sim = row["sim"]["verdict"]
    exp = row["expected"]
    g = row.get("gpu", {})
    outcome = g.get("outcome")
    sync = _n(row.get("synccheck"))
    race = _n(row.get("racecheck"), "hazards")
    name = row["name"]
    if sim != exp:
        notes.append(f"simcore says {sim}, the corpus expects {exp}.")
    defined = exp in ("ok", "warning")
    if defined:
        if outcome and outcome != "completed":
            notes.append(f"The GPU run {outcome} on a kernel that should be defined.")
        vs = g.get("vs_sim")
        if vs and not vs["equal"]:
            notes.append(f"GPU and simulator outputs differ ({vs['wrong']}/{vs['total']}): "
                         f"{vs['message']}")
        vr = g.get("vs_reference")
        if vr and not vr["equal"]:
            notes.append(f"GPU output differs from the numpy reference ({vr['wrong']}/"
                         f"{vr['total']}).")
        if sync:
            notes.append(f"synccheck reports {sync} errors where simcore finds none.")
        if race:
            notes.append(f"racecheck reports {race} hazards where simcore finds none."
                         + (" " + DEFINED_REMARKS[name] if name in DEFINED_REMARKS else ""))
        return notes
    vi = g.get("vs_intended")
    if outcome == "completed" and vi:
        if vi["equal"]:
            notes.append("Undefined, yet this GPU run gave the intended result: code that "
                         "happens to work is no evidence.")
        else:
            notes.append(f"The GPU completed with {vi['wrong']} of {vi['total']} outputs "
                         "different from the intended result.")
    if exp == "divergent_barrier":
        if sync == 0:
            notes.append("synccheck did not flag the divergent barrier in this run.")
        if outcome == "hung":
            notes.append("The GPU hung (the simulator reports the divergence instead of "
                         "modelling a hang).")
    elif exp == "deadlock":
        if outcome == "completed":
            notes.append("The GPU completed: undefined behaviour is not always a hang. simcore "
                         "reports a deadlock because, in its independent-scheduling model, lanes "
                         "that leave the divergent region early wait at its end (the immediate "
                         "post-dominator) for warp-mates that wait at the barrier; the code the "
                         "compiler generated for this branch did not make them wait. docs/semantics.md "
                         "records the same loop pattern hanging on an H200 at 256 threads, so the "
                         "outcome depends on the launch and the compiler: it is undefined.")
    elif exp == "race":
        if race == 0:
            if name in GLOBAL_RACE_ENTRIES:
                notes.append("racecheck only checks shared memory; this race is in global "
                             "memory.")
            else:
                notes.append("racecheck found no hazard in this run.")
        if name == "global_cross_block":
            notes.append("simcore reports a race between blocks (two blocks of one launch touch "
                         "one global element, and nothing inside a kernel orders blocks); no "
                         "compute-sanitizer tool checks for that.")
    elif exp in ("invalid_mask", "undefined_value"):
        if not sync:
            notes.append("synccheck does not check which lanes a shuffle's mask names or "
                         "which lanes it reads from.")
    elif exp == "uninitialized":
        if not sync and not race:
            notes.append("Neither synccheck nor racecheck reports reads of never-written "
                         "shared memory.")
    elif exp == "named_barrier":
        if outcome == "completed" and race:
            notes.append(f"The GPU completed; racecheck saw {race} hazards (the barrier "
                         "released early).")
        elif outcome == "completed":
            notes.append("The GPU completed and no tool flagged the bad count.")
    elif exp in ("out_of_bounds", "misaligned"):
        if outcome == "completed":
            notes.append("The GPU completed: out-of-bounds/misaligned accesses are found by "
                         "memcheck (not synccheck or racecheck), and small overruns may land "
                         "in allocated memory.")
    elif exp == "division_by_zero":
        if outcome == "completed":
            notes.append("The GPU does not trap on integer division by zero; it returns a "
                         "meaningless value.")
    elif exp == "undefined_shift":
        if outcome == "completed":
            notes.append("The GPU's shift instruction clamps the count (no trap): compare with the "
                         "intended values to see what this build computed.")
    elif exp == "step_limit":
        if outcome != "hung":
            notes.append(f"Expected a hang on the GPU, got {outcome}.")
    return notes


# ----------------------------------------------------------------------------- report
def gpu_cell(g):
    if not g:
        return "-"
    text = g["outcome"]
    if g["outcome"] == "completed":
        for key, label in (("vs_sim", "=sim"), ("vs_reference", "=ref"), ("vs_intended", "=intended")):
            c = g.get(key)
            if c is not None:
                text += f", {label}" if c["equal"] else f", {c['wrong']}/{c['total']} ≠{label[1:]}"
    return text


def table(rows, tools):
    head = ["kernel", "expected", "simcore", "GPU"] + list(tools)
    lines = [head]
    for r in rows:
        lines.append([r["name"], r["expected"], r["sim"]["verdict"], gpu_cell(r.get("gpu"))]
                     + [sanitizer_cell(r.get(t)) for t in tools])
    return lines


def to_markdown(rows, tools, meta):
    out = ["# The conformance corpus on a real GPU", "",
           f"Device: {meta['device']}  ",
           f"Date: {meta['date']}; simcore verdicts from this checkout "
           f"({meta.get('commit', '?')}); GPU runs killed after {meta['timeout']} s, "
           f"sanitizer runs after {meta['sanitizer_timeout']} s.", "",
           "Columns: *simcore* is the simulator's verdict; *GPU* is what the kernel did on "
           "the GPU (completed / hung / error) and whether its outputs equal the simulator's "
           "(=sim), the numpy reference (=ref) or, for undefined kernels, the intended result "
           "(=intended); the sanitizer columns give `ERROR SUMMARY` counts (and racecheck "
           "hazards).", ""]
    t = table(rows, tools)
    out.append("| " + " | ".join(t[0]) + " |")
    out.append("|" + "---|" * len(t[0]))
    for line in t[1:]:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in line) + " |")
    out += ["", "## Disagreements and remarks", ""]
    any_note = False
    for r in rows:
        for n in r.get("notes", []):
            out.append(f"- **{r['name']}**: {n}")
            any_note = True
    if not any_note:
        out.append("None.")
    return "\n".join(out) + "\n"


def print_table(rows, tools):
    t = table(rows, tools)
    widths = [max(len(str(line[i])) for line in t) for i in range(len(t[0]))]
    for k, line in enumerate(t):
        print("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run the conformance corpus on a GPU and "
                                 "compute-sanitizer, next to simcore.")
    ap.add_argument("--out", type=Path, default=ROOT / "conformance" / "results",
                    help="output folder (default conformance/results)")
    ap.add_argument("--entries", default="", help="comma-separated entry names (default all)")
    ap.add_argument("--jobs", type=int, default=8, help="entries run in parallel (default 8)")
    ap.add_argument("--timeout", type=float, default=20, help="GPU run time limit, s")
    ap.add_argument("--sanitizer-timeout", type=float, default=60,
                    help="time limit of one compute-sanitizer run, s")
    ap.add_argument("--sim-timeout", type=float, default=300, help="simulator time limit, s")
    ap.add_argument("--tools", default="synccheck,racecheck",
                    help="compute-sanitizer tools (default synccheck,racecheck; add memcheck)")
    ap.add_argument("--no-sanitizer", action="store_true", help="skip compute-sanitizer")
    ap.add_argument("--sanitize-hung", action="store_true",
                    help="run the sanitizers even when the plain GPU run hung (they will too)")
    ap.add_argument("--part", default="",
                    help="K/N: run only every N-th entry starting at the K-th (to split a long "
                         "run over several commands; results accumulate in OUT/raw)")
    ap.add_argument("--sim-only", action="store_true",
                    help="no GPU: fill the simulator column only (for testing the script)")
    ap.add_argument("--name", default="h200", help="report file stem (default h200)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: rebuild the report from OUT/raw (e.g. after copying the "
                         "raw/ folders of several partial runs into one)")
    a = ap.parse_args(argv)
    a.tools = [] if a.no_sanitizer or a.sim_only else [t for t in a.tools.split(",") if t]

    if a.report_only:
        return write_report(a, None, time.time())

    from simcore.cupy_backend import gpu_available

    ok, reason = gpu_available()
    if not ok and not a.sim_only:
        print(f"gpu_conformance: no GPU to run on: {reason}.\n"
              "Run this on a machine with an NVIDIA GPU and CuPy "
              "(pip install 'gpu-barriers-course[gpu]'), or pass --sim-only to fill only the "
              "simulator column.", file=sys.stderr)
        return 2
    device = reason if ok else f"none ({reason}); simulator only"
    sanitizer = None if not a.tools else find_sanitizer()
    if a.tools and sanitizer is None:
        print("gpu_conformance: compute-sanitizer not found (set $COMPUTE_SANITIZER or put the "
              "CUDA toolkit's bin/ on PATH); the sanitizer columns will say n/a.",
              file=sys.stderr)

    names = [n for n in a.entries.split(",") if n] or [e.name for e in corpus.ENTRIES]
    if a.part:
        k, n = (int(x) for x in a.part.split("/"))
        names = names[k - 1::n]
    unknown = [n for n in names if n not in corpus.BY_NAME]
    if unknown:
        print(f"gpu_conformance: unknown entries {unknown}", file=sys.stderr)
        return 2
    raw = a.out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    print(f"device: {device}; {len(names)} entries, {a.jobs} at a time; "
          f"tools: {', '.join(a.tools) or 'none'}", flush=True)
    t0 = time.time()

    def one(name):
        row = run_entry(corpus.get(name), a, raw, sanitizer)
        row.setdefault("notes", explain(row))
        row["device"] = device
        (raw / f"{name}.row.json").write_text(json.dumps(row, indent=1, default=str))
        print(f"  {name}: simcore {row['sim']['verdict']}; GPU {gpu_cell(row.get('gpu'))}; "
              + "; ".join(f"{t} {sanitizer_cell(row.get(t))}" for t in a.tools), flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        list(pool.map(one, names))
    return write_report(a, device, t0)


def write_report(a, device, t0):
    raw = a.out / "raw"
    rows = []
    for e in corpus.ENTRIES:   # every entry with a result, from this run or an earlier one
        p = raw / f"{e.name}.row.json"
        if p.exists():
            rows.append(json.loads(p.read_text()))
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()
    except Exception:
        commit = "?"
    if device is None:
        device = next((r["device"] for r in rows if r.get("device")), "unknown")
    meta = {"device": device, "date": time.strftime("%Y-%m-%d %H:%M"), "commit": commit,
            "timeout": a.timeout, "sanitizer_timeout": a.sanitizer_timeout,
            "tools": a.tools, "seconds": round(time.time() - t0, 1)}
    tools = [t for t in ("synccheck", "racecheck", "memcheck") if any(t in r for r in rows)]
    (a.out / f"{a.name}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1,
                                                     default=str))
    (a.out / f"{a.name}.md").write_text(to_markdown(rows, tools, meta))
    print()
    print_table(rows, tools)
    print(f"\n{len(rows)} entries in {a.out / (a.name + '.md')} and .json "
          f"({meta['seconds']} s this run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
