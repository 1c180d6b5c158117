"""Run All of the course's notebooks, timed in CPU seconds: `python -m simcore.bench --notebooks`.

Each notebook runs top to bottom in a fresh Jupyter kernel (nbclient, as the notebook tests and
a student's "Run All" do), in its own folder.  Two cells are added around the notebook's own:
the first registers IPython pre/post-run hooks that read the kernel process's CPU clock around
every cell, the last reports the kernel's whole CPU time (its own and its children's, from
`resource.getrusage`, so kernel start-up and imports count) and the per-cell times.  CPU time,
not wall time, is what the course's targets are stated in: it does not change with how many
other processes share the machine.  Needs nbclient and ipykernel (the course's environment).
"""
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("course", "solutions")
MARK = "@@notebook-cpu@@"

_START_HOOKS = """\
import time as _nbcpu_time
_nbcpu_cells, _nbcpu_t0 = [], None
def _nbcpu_pre(info=None):
    global _nbcpu_t0
    _nbcpu_t0 = _nbcpu_time.process_time()
def _nbcpu_post(result=None):
    if _nbcpu_t0 is not None:          # not for this cell, which ran before its own pre hook
        _nbcpu_cells.append(_nbcpu_time.process_time() - _nbcpu_t0)
get_ipython().events.register("pre_run_cell", _nbcpu_pre)
get_ipython().events.register("post_run_cell", _nbcpu_post)
"""

_REPORT = """\
import json as _nbcpu_json, resource as _nbcpu_r
_nbcpu_self = _nbcpu_r.getrusage(_nbcpu_r.RUSAGE_SELF)
_nbcpu_kids = _nbcpu_r.getrusage(_nbcpu_r.RUSAGE_CHILDREN)
print("%s" + _nbcpu_json.dumps({"kernel_cpu": _nbcpu_self.ru_utime + _nbcpu_self.ru_stime,
      "children_cpu": _nbcpu_kids.ru_utime + _nbcpu_kids.ru_stime, "cells": _nbcpu_cells}))
""" % MARK


def course_notebooks(root=ROOT, folders=FOLDERS):
    """Every lesson and exercise solution, in course order."""
    found = []
    for folder in folders:
        found += [p for p in sorted((Path(root) / folder).rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
    return found


def run_notebook(path, timeout=600):
    """Run one notebook in a fresh kernel -> {"kernel_cpu", "children_cpu", "wall", "cells", "errors"}.

    "cells" pairs each code cell of the notebook (by its index among code cells) with its CPU
    seconds in the kernel; "errors" lists the code cells that raised."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    own = [c for c in nb.cells if c.cell_type == "code"]
    nb.cells = [nbformat.v4.new_code_cell(_START_HOOKS)] + nb.cells + [nbformat.v4.new_code_cell(_REPORT)]
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(Path(path).parent)}})
    start = time.perf_counter()
    client.execute()
    wall = time.perf_counter() - start
    report = _report_of(nb.cells[-1])
    report["wall"] = wall
    report["errors"] = [k for k, c in enumerate(own) if any(o.get("output_type") == "error" for o in c.outputs)]
    report["cells"] = list(enumerate(report["cells"][:len(own)]))
    return report


def _report_of(cell):
    for out in cell.get("outputs", []):
        for line in out.get("text", "").splitlines():
            if line.startswith(MARK):
                return json.loads(line[len(MARK):])
    raise RuntimeError(f"the notebook timer's report cell printed nothing: {cell.get('outputs')}")


def notebook_lines(paths, top=3, target=10.0):
    """Run every notebook and yield one report line each: CPU, wall, the costliest cells."""
    for path in paths:
        r = run_notebook(path)
        cpu = r["kernel_cpu"] + r["children_cpu"]
        worst = sorted(r["cells"], key=lambda kc: -kc[1])[:top]
        cells = ", ".join(f"cell {k} {t:.1f}s" for k, t in worst)
        flag = "" if cpu <= target else f"  OVER {target:.0f} s"
        errors = f"  ERRORS in cells {r['errors']}" if r["errors"] else ""
        yield (f"{os.path.relpath(path, ROOT):60s} CPU {cpu:5.1f} s (kernel {r['kernel_cpu']:.1f} + children "
               f"{r['children_cpu']:.1f}), wall {r['wall']:5.1f} s; costliest: {cells}{flag}{errors}"), r


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="python -m simcore.bench_notebooks", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="notebooks to time (default: every lesson and solution)")
    ap.add_argument("--json", help="also write the raw results to this file")
    a = ap.parse_args(argv)
    paths = [Path(p).resolve() for p in a.paths] or course_notebooks()
    results = {}
    for line, r in notebook_lines(paths):
        print(line, flush=True)
        results[line.split()[0]] = r
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
