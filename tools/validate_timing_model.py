"""Compare simcore's timing model with H200 block-size sweeps: training and held-out apart.

    python tools/validate_timing_model.py [--markdown docs/timing-validation.md]
                                          [--json OUT.json] [--before BEFORE.json] [--only NAME]

Measurements: course/data/h200-timing-sweeps.json (kernels: barrier_course/lessons/validation_kernels.py,
each with a role, "training" or "heldout") and the earlier course/data/h200-block-sweeps.json
(kernels: barrier_course/lessons/tuning_kernels.py; counted as training: the model's rules were revised
after seeing them). For every (kernel, block size) the model estimates the launch (gpu "H200");
the report gives each point's error, each sweep's median absolute error and the block size the
model picks against the measured best, per role. --json writes the rows (to compare another
version of the model: run this script with that version's simcore first and pass its JSON as
--before). The model's parameters come from simcore/data/gpus.json; none from held-out sweeps.
"""
import argparse
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import simcore                                   # noqa: E402
from barrier_course.lessons import tuning_kernels, validation_kernels   # noqa: E402

PICK_TARGET = 0.10
SWEEP_TARGET = 0.30
MEDIAN_TARGET = 0.15


NOTES = """
## The sets, and what was seen when

* **heldout4** (16 sweeps, 93 points; role `heldout4` in `barrier_course/lessons/validation_kernels.py`):
  chosen and committed (c6acb0b) before any was measured: the shapes heldout3 found hard (reused
  per-thread loads, histograms of 4/16/128/512 bins, keyed atomics on 4 and 512 addresses, tiny
  launches, a 1280^2 tiled matmul, transposes 2048^2 pad 1 and 512^2 pad 0) and ordinary kernels
  (16-step stencil, block scan 2^18, 64-block grid-stride sum). Measured on the H200 in one device
  call whose log printed no heldout4 time (course/data/h200-timing-sweeps4.md). The rules were frozen
  (37ad718) and the errors computed once. **No rule changed this round** (no rule was ready and
  verified in the time): the model on heldout4 is main 8bbdd76's (= ae887da's rules), so heldout4 is
  a blind test of the same model heldout3 tested, and every 'before' row equals its 'this model' row.
* **heldout3** (19 sweeps): the previous held-out set. Its errors were seen in the session that froze
  its rules, so it is now a development set.
* **heldout2** (21 sweeps) and **development**: earlier held-out sets, seen.
* **training** and **microbench**: where parameters come from (mb3/ microbenchmarks: below).

## What the new microbenchmarks say (for the next rules; not applied)

* L1 hits: mb3/dependent_chain_l1 (256 dependent loads inside 4 KB, 1 warp) takes 16.3 us on the
  H200, about 29 ns per load after the launch floor; the model says 50.3 us (it has no L1: a reused line is
  priced as an L2 access). mb3/row_sum_per_thread/256^2 and 4096^2 at 32-128 threads per block: the
  model is 1.9-3.4x slow for the same reason. This is heldout3's window_sum (+168%) and heldout2's
  row_sum_per_thread (84%): an L1 model (hit latency ~29 ns, lines kept per SM) is the fix.
* L1 capacity: mb3/l1_footprint does not resolve it (F1024-F32768 all take 16.7-17.1 us, the window
  re-reads are too few to show through the launch and latency floor); a longer REPS is needed.
* Latency-bound grid-stride loops: mb3/grid_stride_sum on 1, 2, 4, 16 blocks: the H200's time halves
  exactly with the number of warps up to 128 warps (1 block of 32 threads: 5.27 ms for 32768
  iterations, 161 ns per iteration per warp); the model is 6-14% high on 1-4 blocks (6.03 ms for
  that one) and within 14% either way on 16.

## What changed in the model

Nothing this round nor last (the rules below are from ae887da, frozen before heldout2's errors were computed):

* Launch floor: a launch takes at least 8.77 us (median of 12 empty-kernel launches, events around each),
  1.34 us more when the kernel touches global memory (one-store kernel), and otherwise the 5.7 us
  overhead plus its work. Ties at the floor are broken by the work (`Estimate.rank`, the tuner's order).
* Loops whose trip count is a run-time value (`for (r = 0; r < reps; r++)`) cost a constant loop's test
  (NVCC unrolls them too: fma_loop_runtime, 1.28 instructions per one-FMA iteration).
* Partial-sector writes (a warp writing part of a 32-byte sector) cost one more sector of L2 traffic,
  and of DRAM traffic for arrays that do not stay in L2 (strided_write microbenchmarks).
* The SMs' load/store units: one 128-byte line of a warp's global access per cycle (strided_read S16/S32).
* Global atomics per warp and 128-byte line: a line of one counter serialises lanes (1.76 ns); a line of
  several counters takes 2.4 ns per distinct sector of a warp's access, or the lanes on its busiest
  address, whichever is longer; 84 lines at once (atomic_spread k-sweep; atomic_spread_global_4096).
* DRAM bandwidth by element width: 2.59 / 3.71 / 3.95 TB/s for 4 / 8 / 16-byte elements (copies at 2^26).

## Known misses

* heldout4 (blind): median 21.7% over 93 points (target 15%), 4/16 sweeps over 30%, 12/16 picks within
  10%. Over 30%: histogram_bins4/grid528 (248%) and histogram_bins16/grid1056 (51%): few-bin shared
  integer atomics priced far above the H200, as heldout3's histogram_bins8 (194%); window_sum_s8_t64
  (134%) and window_sum_s2_t16 (128%): no L1 in the model, as heldout3's window_sum (168%). Picks off
  by more than 10%: copy/2^15 (+61%), window_sum_s2_t16/2^20 (+40%), transpose_tiled_pad1/2048^2
  (+20%: picks 32, best 256, as heldout3's pad-1 transpose), block_scan/2^18 (+13%).
* heldout3 (seen): over 30%: histogram_bins8/grid264 (194%), window_sum_s4_t32 (168%),
  histogram_bins256/grid132 (38%), copy/2^13 (37%), atomic_spread_k128 (37%), matmul_tiled/768^2 (31%);
  picks: transpose_tiled_pad1/1024^2 (+93%), histogram_bins64/grid2112 (+50%),
  transpose_tiled_pad0/2048^2 (+12%). heldout2's misses all stand (no rule changed).
* strided_read/S16,S32 and strided_write/S16,S32 at 2^24 (DRAM-sized, 16-32 lines per warp access):
  36-74% low; copy_footprint/2^21 and 3x2^20 (16-24 MB): 24-30% low (the half-L2 residency rule calls
  them L2-resident, the H200 moves them at DRAM-like speed); atomic_spread_k16384: 76% high;
  shared_stride/S32: 66% high (NVCC reuses the loads of r and r + 32: the kernel makes half the
  32-way-conflicted loads the source says).
* Estimate cost: the estimate of a few blocks with a long loop is still over the 1 s target
  (grid_stride_saxpy/grid16: 16 s of CPU for six sizes, grid_stride_copy/grid1 9 s, the table's last
  column); not made faster this round.

## ex08's answers on the H200 next to the model (the table of the previous session; not recomputed)

| answer | n | H200 ms | model ms | error | model bound | model/ref | gpu/ref |
| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |
""" + """| solution | 4194304 | 0.0208 | 0.0154 | -26% | latency | 1.00 | 1.00 |
| barrier_only_in_warp_zero | 4194304 | 0.0206 | 0.0154 | -25% | latency | 1.00 | 0.99 |
| shuffle_at_512 | 4194304 | 0.0254 | 0.0205 | -19% | atomics | 1.33 | 1.22 |
| xor_shuffles_thread_zero_adds | 4194304 | 0.0198 | 0.0184 | -7% | latency | 1.19 | 0.95 |
| warp_zero_with_syncwarp | 4194304 | 0.0208 | 0.0169 | -19% | latency | 1.10 | 1.00 |
| float4_quarter_of_the_blocks | 4194304 | 0.0161 | 0.0101 | -37% | latency | 0.65 | 0.77 |
| slow_in_unsampled_blocks | 4194304 | 0.1096 | 0.0912 | -17% | issue | 5.92 | 5.27 |
| cheap_only_at_the_speed_grid | 4194304 | 0.0210 | 0.0156 | -26% | latency | 1.01 | 1.01 |
| atomic_per_thread_at_256 | 4194304 | 7.4108 | 7.3878 | -0% | atomics | 479.98 | 356.29 |
| starting_kernel | 4194304 | 0.0392 | 0.0350 | -11% | atomics | 2.27 | 1.88 |
| tree_at_512 | 4194304 | 0.0279 | 0.0247 | -12% | latency | 1.61 | 1.34 |
| atomic_per_thread | 4194304 | 7.4043 | 7.3880 | -0% | atomics | 480.00 | 355.97 |
| shuffle_at_128 | 4194304 | 0.0656 | 0.0635 | -3% | atomics | 4.12 | 3.16 |
| solution | 3000017 | 0.0183 | 0.0130 | -29% | latency | 1.00 | 1.00 |
| barrier_only_in_warp_zero | 3000017 | 0.0178 | 0.0130 | -27% | latency | 1.00 | 0.98 |
| shuffle_at_512 | 3000017 | 0.0201 | 0.0163 | -19% | atomics | 1.26 | 1.10 |
| xor_shuffles_thread_zero_adds | 3000017 | 0.0166 | 0.0152 | -8% | latency | 1.17 | 0.91 |
| warp_zero_with_syncwarp | 3000017 | 0.0173 | 0.0141 | -18% | latency | 1.09 | 0.95 |
| float4_quarter_of_the_blocks | 3000017 | 0.0142 | 0.0090 | -37% | latency | 0.69 | 0.78 |
| slow_in_unsampled_blocks | 3000017 | 0.0875 | 0.0698 | -20% | issue | 5.38 | 4.79 |
| cheap_only_at_the_speed_grid | 3000017 | 5.3093 | 5.2861 | -0% | atomics | 407.60 | 290.57 |
| atomic_per_thread_at_256 | 3000017 | 5.3038 | 5.2858 | -0% | atomics | 407.58 | 290.27 |
| starting_kernel | 3000017 | 0.0339 | 0.0267 | -21% | atomics | 2.06 | 1.85 |
| tree_at_512 | 3000017 | 0.0226 | 0.0200 | -12% | latency | 1.54 | 1.24 |
| atomic_per_thread | 3000017 | 5.2977 | 5.2860 | -0% | atomics | 407.59 | 289.94 |
| shuffle_at_128 | 3000017 | 0.0499 | 0.0470 | -6% | atomics | 3.63 | 2.73 |
"""


def _kernel(source, options, name):
    return simcore.RawModule(code=source, options=options).get_function(name)


MEASUREMENTS = ("course/data/h200-timing-sweeps.json", "course/data/h200-timing-sweeps2.json",
                "course/data/h200-timing-sweeps3.json", "course/data/h200-timing-sweeps4.json",
                "course/data/h200-timing-sweeps5.json", "course/data/h200-microbench5.json")
HELDOUT = "heldout5"            # the set no rule was changed after seeing; error bars come from it
ROLES = (HELDOUT, "heldout4", "heldout3", "heldout2", "development", "training", "microbench")
BEFORE = "8a95de6"              # the model the --before rows were computed with


def sweeps(only=None):
    """(name, role, measured {block: ms}, estimate(block) -> Estimate) for every measured sweep;
    the role is the kernels table's (validation_kernels.py), which may have moved on since the
    measurement (the first held-out set is now "development")."""
    table = {s.name: s for s in validation_kernels.SWEEPS}
    done = set()
    for path in MEASUREMENTS:
        for sweep in json.loads((ROOT / path).read_text())["sweeps"]:
            if sweep["name"] in done:        # measured again in a later round: the first file's stays
                continue
            done.add(sweep["name"])
            case = table[sweep["name"]]
            inputs = case.inputs(np.random.default_rng(0))

            def est(b, case=case, inputs=inputs):
                grid, block = case.shape(b)
                return _kernel(case.source, validation_kernels.sweep_options(case, b), case.kernel).estimate(
                    grid, block, inputs)
            yield sweep["name"], case.role, {r["block"]: r["median_ms"] for r in sweep["runs"]}, est
    old = json.loads((ROOT / "course/data/h200-block-sweeps.json").read_text())
    cases = {c.name: c for c in tuning_kernels.cases("measured")}
    for sweep in old["sweeps"]:
        case = cases[sweep["name"]]
        inputs = case.make_inputs()

        def est(b, case=case, inputs=inputs):
            grid, block = case.shape(b)
            return _kernel(case.source, case.options(b), case.kernel).estimate(grid, block, inputs)
        yield "earlier:" + sweep["name"], "training", {r["block"]: r["median_ms"] for r in sweep["runs"]}, est


def validate(only=None, progress=True, roles=ROLES):
    rows = []
    for name, role, measured, est in sweeps():
        if only and only not in name or role not in roles:
            continue
        started = time.process_time()
        model, bounds, ranks = {}, {}, {}
        for b in sorted(measured):
            e = est(b)
            model[b], bounds[b] = e.time_ms, e.bound
            ranks[b] = getattr(e, "rank", (e.time_ms,))    # a model without a tie-break rank: its time
        seconds = time.process_time() - started
        errors = {b: model[b] / measured[b] - 1 for b in measured}
        best = min(measured, key=measured.get)
        pick = min(ranks, key=ranks.get)      # as simcore's tuner picks (Estimate.rank)
        rows.append({"sweep": name, "role": role, "measured": measured, "model": model, "bounds": bounds,
                     "errors": errors, "median_error": float(np.median([abs(v) for v in errors.values()])),
                     "pick": pick, "best": best, "pick_vs_best": measured[pick] / measured[best] - 1,
                     "cpu_s": seconds})
        if progress:
            r = rows[-1]
            print(f"{role:8s} {name:40s} median |err| {100 * r['median_error']:5.1f}%  pick {pick} best {best} "
                  f"(+{100 * r['pick_vs_best']:.1f}%)  {seconds:.1f} s CPU", flush=True)
    return rows


def summary(rows, role):
    mine = [r for r in rows if r["role"] == role]
    points = [abs(e) for r in mine for e in r["errors"].values()]
    return {"sweeps": len(mine), "points": len(points),
            "median": float(np.median(points)) if points else float("nan"),
            "p90": float(np.percentile(points, 90)) if points else float("nan"),
            "worst_sweep": max((r["median_error"] for r in mine), default=float("nan")),
            "sweeps_over_30": sum(r["median_error"] > SWEEP_TARGET for r in mine),
            "picks_ok": sum(r["pick_vs_best"] <= PICK_TARGET for r in mine)}


def error_bars(rows):
    """{bound: {"typical_pct", "points"}} from the held-out points: the 75th percentile of the
    absolute error of the points the model said were bound by that resource (rounded up to
    5%), and "all" over every held-out point. Estimates print these (simcore/perf/model.py)."""
    def bar(errors):
        return {"typical_pct": int(5 * np.ceil(20 * np.percentile(errors, 75))), "points": len(errors)}
    held = [(r["bounds"][b], abs(r["errors"][b])) for r in rows if r["role"] == HELDOUT for b in r["errors"]]
    out = {"all": bar([e for _, e in held])}
    for bound in sorted({b for b, _ in held}):
        errors = [e for b, e in held if b == bound]
        if len(errors) >= 4:
            out[bound] = bar(errors)
    return out


def _pct(x):
    return f"{100 * x:.1f}%"


def markdown(rows, before=None):
    out = ["# Timing model vs H200 measurements", "",
           "Generated by `python tools/validate_timing_model.py --json rows.json --before before.json "
           "--error-bars simcore/data/timing-error-bars.json --markdown docs/timing-validation.md` "
           "(CPU time per sweep measured on the 2-core machine, shared, at a load average of about 1.5-2).",
           "Measured: `course/data/h200-timing-sweeps.json`, `-sweeps2.json` ... `-sweeps5.json`, `h200-microbench5.json` (how: their .md) and the "
           "earlier `course/data/h200-block-sweeps.json`; CUDA events, medians of 25-30 launches. Model: "
           "`kernel.estimate(..., gpu=\"H200\")`, parameters from `simcore/data/gpus.json` (specs and the "
           "*training* microbenchmarks; never the held-out sweeps).", "",
           "**heldout5** sweeps were chosen and committed (62f2d8a) before they were measured, their times were "
           "not shown while measuring, and the model's rules were frozen before its errors on them were first "
           "computed; nothing was changed after. heldout4 was seen in the session before and is now a development "
           f"set. 'before' rows: the model of main at {BEFORE} (`--before`).", "",
           f"Targets (issue 25): median absolute error <= {_pct(MEDIAN_TARGET)} over the held-out points; no "
           f"sweep's median error over {_pct(SWEEP_TARGET)}; every pick within {_pct(PICK_TARGET)} of the measured best.", "",
           "| set | sweeps | points | median abs error | 90th percentile | worst sweep (median) | sweeps over 30% "
           "| picks within 10% |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for role in ROLES:
        s = summary(rows, role)
        out.append(f"| {role} (this model) | {s['sweeps']} | {s['points']} | {_pct(s['median'])} | {_pct(s['p90'])} "
                   f"| {_pct(s['worst_sweep'])} | {s['sweeps_over_30']} | {s['picks_ok']}/{s['sweeps']} |")
        if before:
            b = summary(before, role)
            out.append(f"| {role} (before, {BEFORE}) | {b['sweeps']} | {b['points']} | {_pct(b['median'])} "
                       f"| {_pct(b['p90'])} | {_pct(b['worst_sweep'])} | {b['sweeps_over_30']} "
                       f"| {b['picks_ok']}/{b['sweeps']} |")
    out += ["", f"## Held-out sweeps ({HELDOUT}): every point", "",
            f"| kernel | block | measured ms | model ms | error | bound | before ({BEFORE}) |",
            "| --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    prior = {(r["sweep"], int(b)): (float(m), float(r["measured"][b] if b in r["measured"] else r["measured"][str(b)]))
             for r in (before or []) for b, m in r["model"].items()}
    for r in rows:
        if r["role"] != HELDOUT:
            continue
        for b in sorted(r["measured"]):
            was = prior.get((r["sweep"], b))
            was_txt = f"{was[0]:.4f} ({100 * (was[0] / r['measured'][b] - 1):+.0f}%)" if was else ""
            out.append(f"| {r['sweep']} | {b} | {r['measured'][b]:.4f} | {r['model'][b]:.4f} | "
                       f"{100 * r['errors'][b]:+.0f}% | {r['bounds'][b]} | {was_txt} |")
    out += ["", "## Per sweep", "", "| set | sweep | median abs error | model pick | measured best | pick vs best "
            "| estimate CPU s (all sizes) |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for role in ROLES:
        for r in rows:
            if r["role"] == role:
                flag = "" if r["median_error"] <= SWEEP_TARGET else " MISSED"
                pflag = "" if r["pick_vs_best"] <= PICK_TARGET else " MISSED"
                out.append(f"| {role} | {r['sweep']} | {_pct(r['median_error'])}{flag} | {r['pick']} | {r['best']} "
                           f"| +{_pct(r['pick_vs_best'])}{pflag} | {r['cpu_s']:.1f} |")
    out.append(NOTES)
    out += ["", "## Training sweeps: every point (ms; model / measured, model's bound)", ""]
    for r in rows:
        if r["role"] == "training":
            cells = " ".join(f"{b}: {r['model'][b]:.4f} / {r['measured'][b]:.4f} ({r['bounds'][b]});"
                             for b in sorted(r["measured"]))
            out.append(f"* **{r['sweep']}** {cells}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", type=pathlib.Path)
    ap.add_argument("--json", type=pathlib.Path)
    ap.add_argument("--before", type=pathlib.Path)
    ap.add_argument("--error-bars", type=pathlib.Path,
                    help="write the held-out error bars per bound (simcore/data/timing-error-bars.json)")
    ap.add_argument("--rows", type=pathlib.Path, help="a --json file of this script to report instead of estimating")
    ap.add_argument("--only")
    ap.add_argument("--roles", default=",".join(ROLES),
                    help="comma-separated roles to estimate (leave the held-out role out until the rules are frozen)")
    args = ap.parse_args()
    if args.rows:
        rows = json.loads(args.rows.read_text())
        for r in rows:
            for key in ("measured", "model", "errors", "bounds"):
                r[key] = {int(b): v for b, v in r[key].items()}
    else:
        rows = validate(args.only, roles=tuple(args.roles.split(",")))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str) + "\n")
    if args.error_bars:
        bars = {"what": "75th percentile of the absolute error of the H200 held-out points whose model bound is "
                        "this resource (tools/validate_timing_model.py; docs/timing-validation.md)",
                "gpu": "H200", "bounds": error_bars(rows)}
        args.error_bars.write_text(json.dumps(bars, indent=1) + "\n")
    before = None
    if args.before:
        before = json.loads(args.before.read_text())
        for r in before:
            for key in ("measured", "model", "errors", "bounds"):
                r[key] = {int(b): v for b, v in r[key].items()}
    text = markdown(rows, before)
    if args.markdown:
        args.markdown.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
