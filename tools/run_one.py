#!/usr/bin/env python3
"""Run ONE conformance entry once, on the simulator or on the GPU, and save what happened.

    python3 tools/run_one.py ENTRY --backend cupy --out DIR
    compute-sanitizer --tool synccheck python3 tools/run_one.py ENTRY --backend cupy --out DIR

Writes DIR/ENTRY.BACKEND.json ({"status", "verdict", "detail", "seconds"}) and, when the
launch returned, DIR/ENTRY.BACKEND.npz (every argument after the launch, as arg0, arg1...).
status: "completed", "fault" (simulator: undefined behaviour found), "compile_error",
"launch_error" (GPU: CUDA error such as an illegal instruction), "error" (anything else).
Used by tools/gpu_conformance.py, which runs it in a subprocess with a time limit.
"""
import argparse
import json
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402


def pad3(v):
    v = (v,) if isinstance(v, int) else tuple(v)
    return tuple(int(x) for x in v) + (1,) * (3 - len(v))


def run(entry, backend):
    """-> (status, verdict, detail, args or None)"""
    if backend == "sim":
        from conformance import runner

        res = runner.run_sim(entry)
        status = {"ok": "completed", "warning": "completed", "compile_error": "compile_error",
                  "launch_error": "launch_error", "crash": "error"}.get(res.verdict, "fault")
        return status, res.verdict, res.detail, res.args
    import simcore
    from simcore.errors import CompileError, LaunchError

    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in entry.make_args())
    try:
        # the user's path (simcore.RawModule with backend="cupy"): its arguments are marshalled as a
        # student's are (a list for `T **`, a structured scalar or dict for a struct by value)
        mod = simcore.RawModule(code=entry.source, options=tuple(entry.options), backend="cupy",
                                name_expressions=tuple(getattr(entry, "name_expressions", ())),
                                enable_cooperative_groups=getattr(entry, "cooperative", False))
        from conformance.runner import set_globals
        set_globals(mod, entry)
        mod.get_function(entry.kernel)(pad3(entry.grid), pad3(entry.block), args, shared_mem=entry.shared_mem)
    except CompileError as exc:
        return "compile_error", "compile_error", str(exc), None
    except LaunchError as exc:
        return "launch_error", "launch_error", str(exc), None
    return "completed", "completed", "", args


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("entry")
    ap.add_argument("--backend", choices=("sim", "cupy"), default="cupy")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--tag", default=None, help="file name tag (default: the backend)")
    a = ap.parse_args(argv)
    from conformance import corpus

    entry = corpus.get(a.entry)
    a.out.mkdir(parents=True, exist_ok=True)
    tag = a.tag or a.backend
    t0 = time.time()
    try:
        status, verdict, detail, args = run(entry, a.backend)
    except Exception:
        status, verdict, detail, args = "error", "error", traceback.format_exc(), None
    if args is not None:
        np.savez(a.out / f"{entry.name}.{tag}.npz",
                 **{f"arg{i}": x for i, x in enumerate(args) if isinstance(x, np.ndarray)})
    (a.out / f"{entry.name}.{tag}.json").write_text(json.dumps(
        {"status": status, "verdict": verdict, "detail": detail[:4000],
         "seconds": round(time.time() - t0, 3)}))
    print(f"{entry.name} [{a.backend}]: {status} {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
