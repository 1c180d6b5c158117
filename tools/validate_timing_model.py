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
## What changed in the model (all before the held-out errors were computed)

Each rule was designed on the training sweeps (microbenchmarks) and the earlier sweeps:

* **Global atomics from the whole grid**: an L2 atomic operation per warp and 32-byte sector
  (times the most lanes on one address), serialised per 128-byte line at 1.76 ns (the same-address
  microbenchmark), lines in parallel up to 57 (fit: atomic_spread_global_4096); a line hit by
  sampled blocks far apart is hit by every block, so its operations scale with the grid.
  The project's `atomic_per_thread` ex08 answer: 7.39 ms model, 7.40 ms H200 (was 0.025 ms).
* **Same-word shared atomics** serialise: cycles per lane = 4.0 + 1.21 x the other warps of the
  block on the same word (fit: shared_atomic_same).
* **float4** and other wide accesses: a basic block's member loads of one struct count each
  sector once (they are one access on the GPU).
* **Latency-bound small grids**: one memory round trip per basic block that loads (a grid-stride
  loop pays one per iteration), L2 latency 340 cycles (grid_stride_copy/grid1); arrays that fit in
  half the L2 stay there between launches (no DRAM traffic); shuffles wait the shared-memory
  latency; a block's warps start one warp dispatch apart.
* **Blocks that differ**: the sample is the first two and last two blocks plus up to 30 blocks
  spread over the grid and over blockIdx mod 32, each weighted by the blocks it stands for; the
  number run is set by simulated steps, not wall-clock time.
* FMA fusion (a multiply feeding an add is one instruction), constant-trip loop control at 1/8
  (fma_chain); L2 bandwidth 5.0e12 B/s (dependent_chain/grid2112; the earlier 3.01e12 was a lower
  bound).

## Where it still misses (held-out)

* `heavy_middle_blocks` (66%, pick +63%): a quarter of the blocks run 512 dependent multiply-adds per
  thread. The sample finds them in proportion, and the model prices their work as issue
  throughput (2 instructions per iteration); the H200 takes about half that (0.035 ms against
  the model's 0.064 at 256-1024 threads), probably because NVCC fuses or unrolls the loop further
  than the instruction count assumes. Not investigated further: it is held out.
* `transpose_naive` (50%, low): the strided writes (one sector per lane) are priced by L2 bandwidth
  of sectors; the H200 is about 2x slower, probably because partial-sector writes cost more than
  reads. `transpose_tiled` (32%, high): DRAM-priced, though its 32 MB (just over half the L2)
  probably stays partly in L2.
* `atomic_spread_global_256` (38%, low): 256 counters on 8 lines; the line model underestimates how
  little parallelism 8 lines get.
* Picks: the two histograms pick within 10-11% of the best (measured curves are flat), copy_float4
  picks 64 (+22%): the model sees every block size from 64 up as DRAM-bound and equal.

## ex08's answers on the H200 next to the model

Every answer of `tests/course/test_exercise_tuning.py` that the speed points must judge, timed on the H200
(CuPy events, `course/data/h200-timing-sweeps.json` `ex08_answers`) and estimated by the model;
ratios against the solution at the same n. The speed points need model/ref <= 1.5 at both sizes;
the H200 deserves them when gpu/ref <= 1.3 at both (test
`test_speed_points_go_to_exactly_the_answers_an_h200_runs_within_the_factor` checks the two agree).

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


MEASUREMENTS = ("course/data/h200-timing-sweeps.json", "course/data/h200-timing-sweeps2.json")
ROLES = ("heldout2", "development", "training", "microbench")


def sweeps(only=None):
    """(name, role, measured {block: ms}, estimate(block) -> Estimate) for every measured sweep;
    the role is the kernels table's (validation_kernels.py), which may have moved on since the
    measurement (the first held-out set is now "development")."""
    table = {s.name: s for s in validation_kernels.SWEEPS}
    for path in MEASUREMENTS:
        for sweep in json.loads((ROOT / path).read_text())["sweeps"]:
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
            model[b], bounds[b], ranks[b] = e.time_ms, e.bound, e.rank
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
    held = [(r["bounds"][b], abs(r["errors"][b])) for r in rows if r["role"] == "heldout2" for b in r["errors"]]
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
           "(CPU time per sweep measured on the 2-core machine at a load average of 11-14).",
           "Measured: `course/data/h200-timing-sweeps.json` (how: `course/data/h200-timing-sweeps.md`) and the "
           "earlier `course/data/h200-block-sweeps.json`; CUDA events, medians of 25-30 launches. Model: "
           "`kernel.estimate(..., gpu=\"H200\")`, parameters from `simcore/data/gpus.json` (specs and the "
           "*training* microbenchmarks; never the held-out sweeps).", "",
           "**Held-out** sweeps were chosen and committed before they were measured, and the model's rules were "
           "frozen (commit 19fa2dd) before its errors on them were first computed; nothing was changed after. "
           "The measured times themselves were visible in the measuring run's log before the freeze. The "
           "'before' column is the same script run against main at ba1972f (its simcore), `--json`, passed "
           "as `--before`.", "",
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
            out.append(f"| {role} (before, ba1972f) | {b['sweeps']} | {b['points']} | {_pct(b['median'])} "
                       f"| {_pct(b['p90'])} | {_pct(b['worst_sweep'])} | {b['sweeps_over_30']} "
                       f"| {b['picks_ok']}/{b['sweeps']} |")
    out += ["", "## Held-out sweeps: every point", "",
            "| kernel | block | measured ms | model ms | error | bound | before (ba1972f) |",
            "| --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    prior = {(r["sweep"], int(b)): (float(m), float(r["measured"][b] if b in r["measured"] else r["measured"][str(b)]))
             for r in (before or []) for b, m in r["model"].items()}
    for r in rows:
        if r["role"] != "heldout2":
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
                    help="comma-separated roles to estimate (leave heldout2 out until the rules are frozen)")
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
