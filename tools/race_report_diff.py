#!/usr/bin/env python3
"""Run every conformance corpus kernel on two checkouts and diff what simcore says.

    python3 tools/race_report_diff.py BASE_TREE NEW_TREE

Each tree runs its own corpus (conformance/) with its own simcore, in a subprocess, every check
on: per entry the verdict, the full report text and a digest of every argument after the launch.
Entries both trees have must agree byte for byte; entries only one has are listed. Exit status 1
when some common entry differs. (For a change to the checks, such as the race shadow's layout,
that must not change a single report.)
"""
import json
import subprocess
import sys
from pathlib import Path

DUMP = r"""
import hashlib, json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from conformance import corpus, runner
out = {}
for entry in corpus.ENTRIES:
    res = runner.run_sim(entry)
    h = hashlib.sha256()
    for a in (res.args or ()):
        if isinstance(a, np.ndarray):
            h.update(np.ascontiguousarray(a).tobytes())
    out[entry.name] = [res.verdict, (res.detail or "").replace(sys.argv[1], "<tree>"), h.hexdigest()]
json.dump(out, sys.stdout)
"""


def dump(tree):
    tree = str(Path(tree).resolve())
    done = subprocess.run([sys.executable, "-c", DUMP, tree], capture_output=True, text=True, cwd=tree,
                          env={"PYTHONPATH": tree, "PATH": "/usr/bin:/bin"})
    if done.returncode:
        sys.exit(f"{tree}: the corpus run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        sys.exit(__doc__)
    base, new = dump(argv[0]), dump(argv[1])
    common = [n for n in base if n in new]
    differ = [n for n in common if base[n] != new[n]]
    for n in differ:
        print(f"--- {n}\n  base: {base[n][0]} {base[n][2][:16]}\n  new:  {new[n][0]} {new[n][2][:16]}")
        if base[n][1] != new[n][1]:
            print(f"  base report:\n{base[n][1]}\n  new report:\n{new[n][1]}")
    print(f"{len(common)} entries in both: {len(common) - len(differ)} identical, {len(differ)} differ")
    for label, only in (("only in base", [n for n in base if n not in new]),
                        ("only in new", [f"{n} ({new[n][0]})" for n in new if n not in base])):
        if only:
            print(f"{label}: {', '.join(only)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
