"""CPU time of one timing-model estimate, for two source trees, interleaved (issue 22 item 4).

    python benchmarks/estimate_speed.py --base /path/to/other/tree [--repeat 3] [--launch NAME@BLOCK ...]
    python benchmarks/estimate_speed.py --all [--base ...]      # every validation estimate, once each

For each launch (a validation sweep's kernel at one block size, tools/validate_timing_model.py;
by default the slowest shapes of the last rounds: few-block grid-stride loops, a loop per thread,
shared-atomic histograms, stencils, the tiled matmul), each tree estimates it in a fresh
interpreter: inputs made and the kernel compiled first, one untimed estimate, then ``--repeat``
timed ones (``time.process_time``). The trees take turns launch by launch. Printed per launch: the
median CPU seconds per estimate and their range in each tree, the ratio, the machine's load, and
whether both trees gave the same estimate (time, bound and every averaged counter, exactly).
With ``--all``: every estimate of every sweep, once, in one process per tree, and how many take
over 1 s. The estimates come from simulated state; CPU time is the benchmark's only use of time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

SLOW = [
    "grid_stride_copy/grid1/2^20@32", "grid_stride_copy_float2/grid4/2^20@32", "grid_stride_saxpy/grid16/2^22@32",
    "mb3/grid_stride_sum/grid1/2^20@32", "grid_stride_dot_float4/grid264/2^22@32", "grid_stride_sum/grid8/2^22@32",
    "histogram_bins128/grid264/2^22@128", "row_max_per_thread/2048^2@64", "earlier:stencil_1d_r64/2^24@256",
    "earlier:matmul_tiled/2048^2@256",
]

DRIVER = r"""
import json, sys, time, statistics
tree, repeat, launches, out = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
sys.path.insert(0, tree); sys.path.insert(0, tree + "/tools")
import validate_timing_model as v
table = {name: (est, measured) for name, role, measured, est in v.sweeps()}
def fingerprint(e):
    return [repr(e.time_ms), e.bound, sorted((k, repr(x)) for k, x in e.per_block.items())]
rows = []
if launches == "all":
    launches = [f"{name}@{b}" for name, (est, measured) in table.items() for b in sorted(measured)]
    repeat, warm = 1, False
else:
    warm = True
for launch in launches:
    name, block = launch.rsplit("@", 1)
    est = table[name][0]
    if warm:
        est(int(block))
    cpus = []
    for _ in range(repeat):
        t = time.process_time()
        e = est(int(block))
        cpus.append(time.process_time() - t)
    rows.append({"launch": launch, "cpu": cpus, "estimate": fingerprint(e)})
json.dump(rows, open(out, "w"))
"""


def run_tree(tree: Path, launches, repeat: int) -> list:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, "-c", DRIVER, str(tree), str(repeat), json.dumps(launches), out.name],
                       check=True, cwd=tree)
        return json.loads(Path(out.name).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, help="the other tree (a checkout of an earlier commit)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--launch", action="append", help="NAME@BLOCK of a validation sweep (repeatable)")
    ap.add_argument("--all", action="store_true", help="every validation estimate, once each")
    args = ap.parse_args()
    trees = [("this tree", HERE)] + ([("base", args.base.resolve())] if args.base else [])
    if args.all:
        results = {label: run_tree(tree, "all", 1) for label, tree in trees}
        for label, rows in results.items():
            cpus = [r["cpu"][0] for r in rows]
            slowest = max(rows, key=lambda r: r["cpu"][0])
            print(f"{label}: {len(rows)} estimates, {sum(cpus):.1f} s of CPU, {sum(c > 1 for c in cpus)} over 1 s; "
                  f"slowest {slowest['launch']} {slowest['cpu'][0]:.2f} s  (load {os.getloadavg()[0]:.1f})")
        if len(results) == 2:
            a, b = results.values()
            same = sum(x["estimate"] == y["estimate"] for x, y in zip(a, b))
            print(f"the same estimate in both trees: {same} of {len(a)}")
        return
    print(f"{'launch':45s} " + "  ".join(f"{label + ' s':>22s}" for label, _ in trees)
          + ("   ratio  same  load" if args.base else "  load"))
    for launch in args.launch or SLOW:
        rows = {label: run_tree(tree, [launch], args.repeat)[0] for label, tree in trees}
        cells = []
        for label, _ in trees:
            cpus = rows[label]["cpu"]
            cells.append(f"{statistics.median(cpus):8.3f} [{min(cpus):.3f}-{max(cpus):.3f}]")
        line = f"{launch:45s} " + "  ".join(f"{c:>22s}" for c in cells)
        if args.base:
            mine, base = (statistics.median(rows[label]["cpu"]) for label, _ in trees)
            line += f"  {base / mine:6.1f}x  {'yes' if rows['this tree']['estimate'] == rows['base']['estimate'] else 'NO':>4s}"
        print(line + f"  {os.getloadavg()[0]:4.1f}", flush=True)


if __name__ == "__main__":
    main()
