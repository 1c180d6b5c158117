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
import json as _nbcpu_json, resource as _nbcpu_r, sys as _nbcpu_sys
_nbcpu_self = _nbcpu_r.getrusage(_nbcpu_r.RUSAGE_SELF)
_nbcpu_kids = _nbcpu_r.getrusage(_nbcpu_r.RUSAGE_CHILDREN)
print("%s" + _nbcpu_json.dumps({"kernel_cpu": _nbcpu_self.ru_utime + _nbcpu_self.ru_stime,
      "children_cpu": _nbcpu_kids.ru_utime + _nbcpu_kids.ru_stime, "cells": _nbcpu_cells,
      "simcore": getattr(_nbcpu_sys.modules.get("simcore"), "__file__", None)}))
""" % MARK


def course_notebooks(root=ROOT, folders=FOLDERS):
    """Every lesson and exercise solution, in course order."""
    found = []
    for folder in folders:
        found += [p for p in sorted((Path(root) / folder).rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
    return found


def run_notebook(path, timeout=600, tree=None):
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
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))) \
        if tree else None
    start = time.perf_counter()
    client.execute(**({"env": env} if env else {}))
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


def total_cpu(r):
    return r["kernel_cpu"] + r["children_cpu"]


def notebook_line(path, r, top=3, target=10.0, label=""):
    """One report line: CPU, wall, the costliest cells, and whether it is over the target."""
    cpu = total_cpu(r)
    worst = sorted(r["cells"], key=lambda kc: -kc[1])[:top]
    cells = ", ".join(f"cell {k} {t:.1f}s" for k, t in worst)
    flag = "" if cpu <= target else f"  OVER {target:.0f} s"
    errors = f"  ERRORS in cells {r['errors']}" if r["errors"] else ""
    return (f"{label}{_relative(path):60s} CPU {cpu:5.1f} s (kernel {r['kernel_cpu']:.1f} + children "
            f"{r['children_cpu']:.1f}), wall {r['wall']:5.1f} s; costliest: {cells}{flag}{errors}")


def _relative(path):
    parts = Path(path).resolve().parts
    for folder in FOLDERS:
        if folder in parts:
            return str(Path(*parts[parts.index(folder):]))
    return str(path)


def before_after(paths, baseline):
    """Each notebook run by the baseline tree and by this one in turn -> yields (line, record)."""
    for path in paths:
        rel = _relative(path)
        base_path = Path(baseline) / rel
        base = run_notebook(base_path, tree=Path(baseline).resolve()) if base_path.exists() else None
        current = run_notebook(path, tree=ROOT)
        for side, tree in ((base, Path(baseline).resolve()), (current, ROOT)):
            if side and side.get("simcore") and not Path(side["simcore"]).resolve().is_relative_to(tree):
                raise RuntimeError(f"{rel}: the kernel imported simcore from {side['simcore']}, not from {tree}")
        ratio = f"{total_cpu(base) / total_cpu(current):.2f}x" if base else "-"
        base_text = f"{total_cpu(base):5.1f} s" if base else "  (none)"
        line = (f"{rel:60s} baseline CPU {base_text}, current CPU {total_cpu(current):5.1f} s, "
                f"speedup {ratio}" + ("  OVER 10 s" if total_cpu(current) > 10 else "")
                + (f"  ERRORS in cells {current['errors']}" if current["errors"] else ""))
        yield line, {"baseline": base, "current": current}


def notebooks_main(baseline=None, json_path=None, paths=None):
    """`python -m simcore.bench --notebooks [--baseline DIR]`: one line per lesson and solution."""
    paths = paths or course_notebooks()
    print(f"Run All of {len(paths)} notebooks (nbclient, a fresh kernel each; CPU = the kernel process's "
          f"own and its children's, from getrusage; target 10 s)" + (f"; baseline {baseline}" if baseline else ""))
    results = {}
    lines = before_after(paths, baseline) if baseline else notebook_lines(paths)
    for line, record in lines:
        print(line, flush=True)
        results[line.split()[0]] = record
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=1))
    return 0


def notebook_lines(paths, top=3, target=10.0):
    """Run every notebook and yield one report line each: CPU, wall, the costliest cells."""
    for path in paths:
        r = run_notebook(path)
        yield notebook_line(path, r, top, target), r


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_notebooks", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="notebooks to time (default: every lesson and solution)")
    ap.add_argument("--json", help="also write the raw results to this file")
    ap.add_argument("--baseline", metavar="DIR", help="another source tree: its run of each notebook alternates with this one's")
    a = ap.parse_args(argv)
    paths = [Path(p).resolve() for p in a.paths] or None
    return notebooks_main(a.baseline, a.json, paths)


if __name__ == "__main__":
    raise SystemExit(main())
