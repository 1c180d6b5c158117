#!/usr/bin/env python3
"""Run notebooks top to bottom on the GPU machine with SIMCORE_BACKEND=cupy; keep what came out.

    python3 tools/run_notebooks_on_gpu.py --out OUT solutions/ex08_tune_block_sum/ex08_tune_block_sum.ipynb

Each notebook runs in a fresh kernel in its own folder (nbclient, as a student's "Run All" and the
notebook tests do), errors allowed so that one failing cell does not hide the rest. Writes
OUT/report.json (per notebook: the error outputs by cell, wall seconds, a failure of the run
itself) and OUT/<stem>_cupy_outputs.txt (every text output, by code-cell index), the format of
benchmarks/h200-notebook-runs/. nbclient and ipykernel are not on the device machine: carry them
as wheels (the device README's recipe) and put them on PYTHONPATH first.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _text_outputs(nb) -> list[str]:
    lines = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "stream":
                text = out.get("text", "")
            elif kind in ("execute_result", "display_data"):
                text = out.get("data", {}).get("text/plain", "")
            elif kind == "error":
                text = f"{out.get('ename')}: {out.get('evalue')}"
            else:
                continue
            lines.append(f"--- cell {k} ({kind})\n{text.rstrip()}")
    return lines


def run_one(path: Path, out: Path, timeout: int) -> dict:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    start, failure = time.perf_counter(), None
    try:
        client.execute()
    except Exception as exc:  # the run itself failed (a timeout, a dead kernel): say so, go on
        failure = f"{type(exc).__name__}: {exc}"[:2000]
    wall = time.perf_counter() - start
    errors = [{"cell": k, "ename": o.get("ename"), "evalue": o.get("evalue"),
               "traceback_tail": "\n".join(o.get("traceback", []))[-1500:]}
              for k, c in enumerate(nb.cells) for o in c.get("outputs", []) if o.get("output_type") == "error"]
    (out / f"{path.stem}_cupy_outputs.txt").write_text("\n".join(_text_outputs(nb)) + "\n", encoding="utf-8")
    return {"notebook": str(path.relative_to(ROOT)), "errors": errors, "failure": failure,
            "wall_s": round(wall, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--timeout", type=int, default=600, help="seconds a cell may take")
    ap.add_argument("notebooks", nargs="+", type=Path)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["SIMCORE_BACKEND"] = "cupy"
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    report = {"python": sys.version.split()[0], "runs": []}
    for nb in args.notebooks:
        row = run_one(nb.resolve(), args.out, args.timeout)
        report["runs"].append(row)
        print(f"{row['notebook']}: {len(row['errors'])} error outputs, failure {row['failure']}, {row['wall_s']} s",
              flush=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0 if all(not r["errors"] and not r["failure"] for r in report["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
