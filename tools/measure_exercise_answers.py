"""Time every right answer of every exercise on a real GPU, next to simcore's MODEL estimate.

The right answers of an exercise are its solution (the instructor notebook's answer cell) and
every answer in the ``RIGHT`` table of its test module (``tests/test_exercise_*.py``, the
answers the tests require full marks for). The graded launches of an answer are the launches
the notebook's grade cells make with it (hidden tests included): the grade cells are run with
``source`` set to the answer and ``check_kernel`` / ``check_estimated_time`` replaced by
recorders, so a launch whose block size comes from the answer (ex08's ``#define BLOCK_SIZE``)
is the answer's own. Each launch is built exactly as the grader builds it
(``barrier_course.grading.checks.build_case``: the same seeds, sizes and reference outputs).

Three steps, the middle one on the GPU machine:

    python tools/measure_exercise_answers.py plan --out plan.json          # CPU: answers + sources
    python tools/measure_exercise_answers.py gpu --plan plan.json --out DIR  # GPU, CuPy
    python tools/measure_exercise_answers.py model --plan plan.json --gpu-table DIR/exercise-answers.json \
        --out course/data/h200-exercise-answers.json                       # CPU: simcore's estimates
    python tools/measure_exercise_answers.py markdown    # its section of docs/timing-validation.md
    python tools/measure_exercise_answers.py remodel     # CPU: the model column again, the H200 columns kept

``gpu``: for each answer, compile with NVRTC (CuPy), and for each graded launch run it once and
compare the outputs with the exercise's reference (the grader's tolerances), then time it as
``tools/measure_timing_sweeps.py`` does (CUDA events around each launch, warm-up, median of
repeats; every argument array restored before each launch, outside the events). Each exercise
runs in its own process with a time limit, and the table is written after every exercise.
``model``: ``kernel.estimate`` (simcore's timing model of the H200) for the same launches,
written next to the measurements with the error model / measured - 1.
"""
from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import importlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RECORDED = ("check_kernel", "check_estimated_time")


# ----------------------------------------------------------------------- exercises and answers
def exercise_notebooks() -> dict:
    """{exercise name: instructor notebook} for every exercise under solutions/."""
    return {p.parent.name: p for p in sorted((ROOT / "solutions").glob("ex*/ex*.ipynb"))}


def _code_cells(notebook: Path) -> list:
    """[(nbgrader metadata, source)] of the notebook's code cells."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [((c.get("metadata") or {}).get("nbgrader", {}), "".join(c["source"]))
            for c in nb["cells"] if c["cell_type"] == "code"]


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def solution_source(notebook: Path) -> str:
    """The solution's kernel source: the instructor notebook's answer cell string."""
    import ast
    for meta, src in _code_cells(notebook):
        if meta.get("solution"):
            return ast.literal_eval(ast.parse(src).body[0].value)
    raise ValueError(f"{notebook}: no answer cell")


def right_answers() -> dict:
    """{exercise: {answer name: kernel source}}: the solution and every RIGHT answer of the
    exercise's test module (needs pytest: the test modules import it)."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "course"))      # the exercises' test modules
    from exercise_answers import answer_template, kernel_with
    answers = {name: {"solution": answer_template(nb)} for name, nb in exercise_notebooks().items()}
    for module_path in sorted((ROOT / "tests" / "course").glob("test_exercise_*.py")):
        module = importlib.import_module(module_path.stem)
        notebook = getattr(module, "NOTEBOOK", None)
        right = getattr(module, "RIGHT", None)
        if notebook is None or right is None:
            continue
        for name, answer in sorted(right.items()):
            answers[Path(notebook).parent.name][name] = kernel_with(Path(notebook), answer)
    return answers


# ------------------------------------------------------------------------------ graded launches
@functools.lru_cache(maxsize=None)
def _setup_namespace(notebook: Path) -> dict:
    """What the notebook's locked setup cell defines (make_args, references, constants); run
    once per notebook (every answer's grade cells start from a copy)."""
    namespace: dict = {"__name__": "__graded_launches__"}
    for meta, src in _code_cells(notebook):
        if meta.get("locked") and not meta.get("grade") and meta.get("grade_id") == "setup":
            exec(compile(src, f"{notebook.name}:setup", "exec"), namespace)
    return namespace


def graded_launches(notebook: Path, source: str) -> list:
    """Every launch the notebook's grade cells make with `source` as the answer:
    [{cell, call, kernel, make_args, reference, block, n, seed, rtol, atol, options}]."""
    from barrier_course.grading.checks import default_sizes
    from barrier_course.grading.speed_grading import chosen_block_size
    cells = _code_cells(notebook)
    namespace = dict(_setup_namespace(notebook))
    launches = []

    def record(kind):
        def recorder(src, kernel_name, *, make_args, reference, **kw):
            if kind == "check_estimated_time":
                block = kw.get("block") or chosen_block_size(src, kernel_name)
                sizes = kw.get("correct_sizes")
                calls = [((block,), sizes, (0,)), ((block,), (kw["n"],), (0,))]
            else:
                calls = [(tuple(kw.get("block_sizes", ())), kw.get("sizes"), tuple(kw.get("seeds", (0,))))]
            for block_sizes, sizes, seeds in calls:
                for block in block_sizes:
                    ns = default_sizes(block) if sizes is None else (sizes(block) if callable(sizes) else sizes)
                    for n in ns:
                        for seed in seeds:
                            launches.append(dict(cell=cell_id, call=len(launches), kernel=kernel_name,
                                                 make_args=make_args, reference=reference, block=int(block),
                                                 n=int(n), seed=int(seed), rtol=kw.get("rtol", 1e-5),
                                                 atol=kw.get("atol", 1e-6), options=tuple(kw.get("options", ()))))
        return recorder

    for meta, src in cells:
        if not meta.get("grade"):
            continue
        cell_id = meta["grade_id"]
        namespace.update({name: record(name) for name in RECORDED}, source=source)
        exec(compile(src, f"{notebook.name}:{cell_id}", "exec"), namespace)
    return _distinct(launches)


def _distinct(launches: list) -> list:
    """One launch per (cell, block, n, seed): a cell that checks the same case under several
    schedules launches it once on a GPU."""
    seen, out = set(), []
    for launch in launches:
        key = (launch["cell"], launch["block"], launch["n"], launch["seed"], launch["make_args"])
        if key not in seen:
            seen.add(key)
            out.append(launch)
    return out


def launch_key(launch: dict) -> str:
    return f"{launch['cell']}#{launch['call']}:block={launch['block']},n={launch['n']},seed={launch['seed']}"


# --------------------------------------------------------------------------------- on the GPU
def _matches(got, want, rtol, atol) -> bool:
    import numpy as np
    got = np.asarray(got).reshape(-1)
    want = np.asarray(want).reshape(-1)
    if got.size < want.size:
        return False
    return bool(np.allclose(got[: want.size].astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol))


def time_answer_launch(cp, kernel, names, launch, reps, warmup) -> dict:
    """Run one graded launch on the GPU: check its outputs, then time it."""
    import numpy as np
    from barrier_course.grading.checks import build_case
    from measure_timing_sweeps import time_launches
    case = build_case(launch["make_args"], launch["reference"], launch["n"], launch["block"], launch["seed"])
    host = tuple(a for a in case.args)
    dev = tuple(cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
    pristine = [cp.array(d) if isinstance(d, cp.ndarray) else None for d in dev]

    def reset():
        for d, p in zip(dev, pristine):
            if p is not None:
                d[...] = p

    def run():
        kernel(case.grid, (case.block,), dev, shared_mem=case.shared_mem)

    reset()
    run()
    cp.cuda.Device().synchronize()
    correct = True
    for key, want in case.expected.items():
        pos = key if isinstance(key, int) else names.index(key)
        correct &= _matches(cp.asnumpy(dev[pos]), want, launch["rtol"], launch["atol"])
    row = time_launches(cp, run, reset, reps, warmup)
    row.update(correct=bool(correct), grid=list(case.grid), shared_mem=case.shared_mem)
    return row


def gpu_exercise(plan: dict, exercise: str, reps: int, warmup: int) -> dict:
    """{answer: {launch key: measured row}} for one exercise (the child process)."""
    import cupy as cp
    import simcore
    notebook = exercise_notebooks()[exercise]
    result = {}
    for answer, entry in plan["answers"][exercise].items():
        source = entry["source"]
        rows = result.setdefault(answer, {})
        try:
            launches = graded_launches(notebook, source)
            names = [p.name for p in simcore.RawModule(code=source, backend="sim")
                     .get_function(launches[0]["kernel"]).params]
            kernel = cp.RawModule(code=source, options=launches[0]["options"]).get_function(launches[0]["kernel"])
        except Exception as exc:
            rows["error"] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        for launch in launches:
            try:
                rows[launch_key(launch)] = time_answer_launch(cp, kernel, names, launch, reps, warmup)
            except Exception as exc:
                rows[launch_key(launch)] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        rows["registers"] = int(kernel.num_regs)
        print(f"{exercise} {answer}: {len(launches)} launches, "
              f"{sum(1 for r in rows.values() if isinstance(r, dict) and r.get('correct'))} correct", flush=True)
    return result


def gpu_main(args) -> None:
    import cupy as cp
    from measure_timing_sweeps import device_facts, time_launches
    plan = json.loads(args.plan.read_text())
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "exercise-answers.json"
    empty = cp.RawModule(code='extern "C" __global__ void empty() {}').get_function("empty")
    table = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "device": {**device_facts(cp), "cuda_driver": cp.cuda.runtime.driverGetVersion(),
                        "nvrtc": list(cp.cuda.nvrtc.getVersion())}, "reps": args.reps, "warmup": args.warmup,
             "launch_empty_1x32": time_launches(cp, lambda: empty((1,), (32,), ()), lambda: None, 200, 20),
             "measured": {}}
    t0 = time.time()
    for exercise in plan["answers"]:
        if args.only and exercise not in args.only.split(","):
            continue
        if time.time() - t0 > args.budget_s:
            table["measured"][exercise] = {"error": "not measured: the time budget was spent"}
            continue
        cmd = [sys.executable, __file__, "gpu-child", "--plan", str(args.plan), "--exercise", exercise,
               "--reps", str(args.reps), "--warmup", str(args.warmup)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            table["measured"][exercise] = (json.loads(lines[-1][7:]) if lines else
                                           {"error": f"exit {p.returncode}: {p.stderr.strip()[-500:]}"})
            print("\n".join(ln for ln in p.stdout.splitlines() if not ln.startswith("RESULT ")), flush=True)
            if p.stderr.strip():
                print(p.stderr[-1500:], flush=True)
        except subprocess.TimeoutExpired:
            table["measured"][exercise] = {"error": f"hung: no result within {args.timeout} s"}
        print(f"{exercise} done ({time.time() - t0:.0f} s)", flush=True)
        out.write_text(json.dumps(table, indent=1) + "\n")
    out.write_text(json.dumps(table, indent=1) + "\n")


# ---------------------------------------------------------------------------- the model on CPU
@functools.lru_cache(maxsize=8)
def _sim_kernel(source: str, options: tuple, name: str):
    import simcore
    return simcore.RawModule(code=source, options=options, backend="sim").get_function(name)


def model_estimate(source: str, launch: dict):
    """simcore's MODEL estimate (an Estimate) of one graded launch."""
    from barrier_course.grading.checks import build_case
    case = build_case(launch["make_args"], launch["reference"], launch["n"], launch["block"], launch["seed"])
    kernel = _sim_kernel(source, launch["options"], launch["kernel"])
    return kernel.estimate(case.grid, (case.block,), case.args, shared_mem=case.shared_mem, gpu="H200")


def model_rows(exercise: str, answer: str, source: str, measured: dict) -> list:
    rows = []
    for launch in graded_launches(exercise_notebooks()[exercise], source):
        key = launch_key(launch)
        gpu = measured.get(key, {}) if isinstance(measured, dict) else {}
        row = {"exercise": exercise, "answer": answer, "source_sha256": source_digest(source), "launch": key,
               "grid": gpu.get("grid"), "block": launch["block"], "n": launch["n"],
               "h200_median_ms": gpu.get("median_ms"), "h200_min_ms": gpu.get("min_ms"),
               "h200_max_ms": gpu.get("max_ms"), "gpu_correct": gpu.get("correct"),
               "gpu_error": gpu.get("error") or (measured.get("error") if isinstance(measured, dict) else None)}
        try:
            est = model_estimate(source, launch)
            row.update(model_ms=round(est.time_ms, 6), model_bound=est.bound)
        except Exception as exc:
            row.update(model_ms=None, model_error=f"{type(exc).__name__}: {exc}"[:300])
        if row["h200_median_ms"] and row["model_ms"] is not None:
            row["error"] = round(row["model_ms"] / row["h200_median_ms"] - 1, 4)
        rows.append(row)
    return rows


def model_main(args) -> None:
    plan = json.loads(args.plan.read_text())
    gpu = json.loads(args.gpu_table.read_text())
    rows = []
    for exercise, answers in plan["answers"].items():
        measured = gpu["measured"].get(exercise, {})
        for answer, entry in answers.items():
            t = time.process_time()
            rows += model_rows(exercise, answer, entry["source"], measured.get(answer, measured))
            print(f"{exercise} {answer}: model {time.process_time() - t:.1f} s CPU", flush=True)
    table = {"what": ("Every right answer of every exercise (the solution and each RIGHT answer of its test "
                      "module) at each graded launch of the exercise's grade cells, hidden tests included: "
                      "H200 time per launch (CUDA events, median/min/max of `reps` launches after `warmup`; "
                      "outputs checked against the exercise's reference first) next to simcore's MODEL "
                      "estimate (kernel.estimate, gpu='H200'); error = model / H200 median - 1. "
                      "Script: tools/measure_exercise_answers.py."),
             "measured_on": gpu["date"], "device": gpu["device"], "reps": gpu["reps"], "warmup": gpu["warmup"],
             "launch_empty_1x32": gpu["launch_empty_1x32"],
             "model_computed": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "rows": rows}
    args.out.write_text(_one_row_a_line(table))


def remodel_main(args) -> None:
    """The model column of the committed table again (after the model changed), from the
    H200 columns already in it: no GPU needed. Every answer's source must be the one measured."""
    table = json.loads(args.table.read_text())
    answers = right_answers()
    by_answer = {}
    for r in table["rows"]:
        by_answer.setdefault((r["exercise"], r["answer"]), []).append(r)
    rows = []
    for (exercise, answer), old in by_answer.items():
        source = answers[exercise][answer]
        if any(r["source_sha256"] != source_digest(source) for r in old):
            raise SystemExit(f"{exercise}/{answer}: its source changed since it was measured; run the gpu step")
        measured = {r["launch"]: {"grid": r["grid"], "median_ms": r["h200_median_ms"], "min_ms": r["h200_min_ms"],
                                  "max_ms": r["h200_max_ms"], "correct": r["gpu_correct"], "error": r["gpu_error"]}
                    for r in old}
        t = time.process_time()
        rows += model_rows(exercise, answer, source, measured)
        print(f"{exercise} {answer}: model {time.process_time() - t:.1f} s CPU", flush=True)
    table["rows"] = rows
    table["model_computed"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    args.table.write_text(_one_row_a_line(table))


def _one_row_a_line(table: dict) -> str:
    """The table as JSON with one row a line (a diff of a re-run reads row by row)."""
    head = json.dumps({k: v for k, v in table.items() if k != "rows"}, indent=1)[:-2]
    rows = ",\n".join("  " + json.dumps(r) for r in table["rows"])
    return f'{head},\n "rows": [\n{rows}\n ]\n}}\n'


# ------------------------------------------------------------------------------- the markdown
MARKERS = ("<!-- exercise-answers: begin (tools/measure_exercise_answers.py markdown) -->",
           "<!-- exercise-answers: end -->")


def _pct(x) -> str:
    return f"{100 * x:+.0f}%"


def markdown_section(table: dict) -> str:
    """The docs/timing-validation.md section: per exercise and right answer, the graded launches'
    H200 and model times (median and range over the launches) and the error; then every launch
    of at least 2^20 elements (ex08's speed tests) and the worst launch of the answers missed most."""
    groups: dict = {}
    for row in table["rows"]:
        groups.setdefault((row["exercise"], row["answer"]), []).append(row)
    errors = [r["error"] for r in table["rows"] if r.get("error") is not None]
    floor = table["launch_empty_1x32"]["median_ms"]
    lines = [MARKERS[0], "## Every exercise's right answers on the H200 next to the model", "",
             f"Measured {table['measured_on'][:10]} on one {table['device']['name']} (CUDA runtime "
             f"{table['device']['cuda_runtime']}, driver {table['device'].get('cuda_driver')}, CuPy "
             f"{table['device']['cupy']}) by `tools/measure_exercise_answers.py` (how: "
             "`course/data/h200-exercise-answers.md`; every row: `course/data/h200-exercise-answers.json`). "
             "Right answers: each exercise's solution and every `RIGHT` answer of its test module; launches: "
             "every distinct launch of the exercise's grade cells with that answer, hidden tests included "
             f"(the grader's sizes, block sizes and seeds). {len(table['rows'])} launches, "
             f"{sum(1 for r in table['rows'] if r.get('gpu_correct'))} with the reference's outputs on the GPU. "
             f"Error = model / H200 median - 1; over every launch: median {_pct(statistics.median(errors))}, "
             f"median absolute {100 * statistics.median(abs(e) for e in errors):.0f}%. "
             f"An empty kernel (1 x 32 threads) measures {floor:.4f} ms the same way. "
             "(This section is written by `python tools/measure_exercise_answers.py markdown`; what the rows "
             "show, in words: `course/data/h200-exercise-answers.md`.)", "",
             "**Not a held-out validation set, and not a representative one.** No model rule was set from these "
             "numbers: ex01-ex07's answers were first timed on a GPU in this run, after the model now in "
             "`simcore/perf/` was merged, and nothing in the model changed after. ex08's answers were measured "
             "before (the section above) and were seen while the model's rules were designed. Nearly every "
             "graded launch is small (a few blocks; correctness tests, not speed tests), so the H200 times are "
             "close to the launch floor and what these rows mostly test is the model's price of an almost "
             "empty launch.", "",
             "| exercise | answer | launches | H200 ms (median; range) | model ms (median; range) | error (median; range) |",
             "| --- | --- | ---: | --- | --- | --- |"]
    for (exercise, answer), rows in groups.items():
        h = [r["h200_median_ms"] for r in rows if r.get("h200_median_ms")]
        m = [r["model_ms"] for r in rows if r.get("model_ms") is not None]
        e = [r["error"] for r in rows if r.get("error") is not None]
        if not (h and m and e):
            lines.append(f"| {exercise} | {answer} | {len(rows)} | not measured | | |")
            continue
        lines.append(f"| {exercise} | {answer} | {len(rows)} | "
                     f"{statistics.median(h):.4f}; {min(h):.4f}-{max(h):.4f} | "
                     f"{statistics.median(m):.4f}; {min(m):.4f}-{max(m):.4f} | {_pct(statistics.median(e))}; "
                     f"{_pct(min(e))} to {_pct(max(e))} |")
    lines += ["", "Launches of at least 2^20 elements (ex08's speed tests, each answer at its own BLOCK_SIZE):", "",
              "| exercise | answer | launch | grid | H200 ms | model ms | error | model bound |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    big = [r for r in table["rows"] if r["n"] >= 1 << 20]
    worst_of_answer: dict = {}
    for r in table["rows"]:
        key = (r["exercise"], r["answer"])
        if r.get("error") is not None and abs(r["error"]) > abs(worst_of_answer.get(key, {"error": 0})["error"]):
            worst_of_answer[key] = r
    worst = sorted(worst_of_answer.values(), key=lambda r: -abs(r["error"]))[:8]
    for r in big:
        lines.append(_launch_line(r))
    lines += ["", "The largest misses (the worst launch of each of the eight answers the model misses most):", "",
              "| exercise | answer | launch | grid | H200 ms | model ms | error | model bound |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    lines += [_launch_line(r) for r in worst]
    lines.append(MARKERS[1])
    return "\n".join(lines) + "\n"


def _launch_line(r: dict) -> str:
    return (f"| {r['exercise']} | {r['answer']} | {r['launch']} | {r['grid']} | {r['h200_median_ms']:.4f} | "
            f"{r['model_ms']:.4f} | {_pct(r['error'])} | {r.get('model_bound')} |")


def markdown_main(args) -> None:
    """Put the section into the document, replacing an earlier one between the markers."""
    section = markdown_section(json.loads(args.table.read_text()))
    text = args.doc.read_text() if args.doc.exists() else ""
    if MARKERS[0] in text and MARKERS[1] in text:
        start, end = text.index(MARKERS[0]), text.index(MARKERS[1]) + len(MARKERS[1]) + 1
        text = text[:start] + section + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    args.doc.write_text(text)


def plan_main(args) -> None:
    answers = {ex: {name: {"source": src, "sha256": source_digest(src)} for name, src in named.items()}
               for ex, named in right_answers().items()}
    args.out.write_text(json.dumps({"answers": answers}, indent=1) + "\n")
    for ex, named in answers.items():
        print(ex, len(named), "answers;", len(graded_launches(exercise_notebooks()[ex], named["solution"]["source"])),
              "graded launches of the solution")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--out", type=Path, required=True)
    g = sub.add_parser("gpu")
    g.add_argument("--plan", type=Path, required=True)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--only", default="")
    g.add_argument("--reps", type=int, default=15)
    g.add_argument("--warmup", type=int, default=3)
    g.add_argument("--timeout", type=float, default=120.0)
    g.add_argument("--budget-s", type=float, default=400.0)
    c = sub.add_parser("gpu-child")
    c.add_argument("--plan", type=Path, required=True)
    c.add_argument("--exercise", required=True)
    c.add_argument("--reps", type=int, default=15)
    c.add_argument("--warmup", type=int, default=3)
    m = sub.add_parser("model")
    m.add_argument("--plan", type=Path, required=True)
    m.add_argument("--gpu-table", type=Path, required=True)
    m.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("remodel")
    r.add_argument("--table", type=Path, default=ROOT / "course/data/h200-exercise-answers.json")
    d = sub.add_parser("markdown")
    d.add_argument("--table", type=Path, default=ROOT / "course/data/h200-exercise-answers.json")
    d.add_argument("--doc", type=Path, default=ROOT / "docs/timing-validation.md")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if args.step == "plan":
        plan_main(args)
    elif args.step == "gpu":
        gpu_main(args)
    elif args.step == "gpu-child":
        result = gpu_exercise(json.loads(args.plan.read_text()), args.exercise, args.reps, args.warmup)
        print("RESULT " + json.dumps(result), flush=True)
    elif args.step == "model":
        model_main(args)
    elif args.step == "remodel":
        remodel_main(args)
    else:
        markdown_main(args)


if __name__ == "__main__":
    main()
