"""`python -m simcore.bench`: the benchmark's command line (the tables are built in bench.py,
the Oclgrind peers in bench_peers.py, the notebooks' Run All in bench_notebooks.py). Kept apart
from bench.py so that bench_peers can read bench's cases without bench reading it back."""
import argparse
import json
import sys
import time

from .bench import (
    BEFORE_AFTER_HEADERS,
    LESSON,
    SCHEDULE_HEADERS,
    WORKLOADS,
    before_after,
    benchmarks_dir,
    course_case,
    fmt_memory,
    fmt_n,
    fmt_profile,
    fmt_ratio,
    fmt_s,
    fmt_stat,
    machine,
    median,
    memory_over_launches,
    module,
    narrow_loop_cases,
    numba_python,
    oclgrind_available,
    parse_sizes,
    points_n,
    profile_launch,
    run_numba,
    run_simcore,
    schedule_lines,
    table,
    worst_cases,
)
from .bench import __doc__ as BENCH_DOC


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m simcore.bench", description=BENCH_DOC.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 2^12 and 2^16, small worst cases and peer runs")
    ap.add_argument("--sizes", help="comma-separated sizes: powers of two (16,20) or thread counts")
    ap.add_argument("--no-peers", action="store_true", help="do not run Oclgrind or Numba's simulator")
    ap.add_argument("--no-worst", action="store_true", help="skip the worst cases")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory-over-launches line")
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated subset")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per point (median and range; default 3)")
    ap.add_argument("--numba-python", help="python interpreter with numba installed (default: this one)")
    ap.add_argument("--peer-budget", type=float, default=300.0,
                    help="seconds a peer may spend on one point (its runs together; default 300); "
                         "with --baseline also the time limit of one baseline launch")
    ap.add_argument("--baseline", metavar="DIR",
                    help="another simcore source tree (the directory holding simcore/, e.g. a git worktree of an "
                         "older commit) to run side by side with this one: the before/after table")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile one launch of the reduction with checks on: the top 10 functions by own time")
    ap.add_argument("--profile-size", default="20", help="threads of the profiled reduction (default 20: 2^20)")
    ap.add_argument("--memory-size", help="threads of the reduction launched 20 times for the memory line "
                                          "(default 20: 2^20; 16 with --quick)")
    ap.add_argument("--no-schedules", action="store_true",
                    help="skip the schedules' table (every course workload under each schedule)")
    ap.add_argument("--schedule-budget", type=float, default=120.0,
                    help="seconds of CPU one schedule may spend on one point of the schedules' table "
                         "(its runs together; also the time limit of one launch; default 120)")
    ap.add_argument("--json", help="also write the raw results to this file")
    ap.add_argument("--notebooks", action="store_true",
                    help="time Run All of every lesson and exercise solution (kernel CPU, fresh kernel each; "
                         "with --baseline, the baseline tree's run of each notebook alternates with this tree's)")
    ap.add_argument("--whole-process-size", default="12",
                    help="threads of the whole-process line's reduction (default 12: 2^12)")
    a = ap.parse_args(argv)
    sizes = parse_sizes(a.sizes) if a.sizes else ([2 ** 12, 2 ** 16] if a.quick else [2 ** 16, 2 ** 20])
    names = [w for w in a.workloads.split(",") if w]
    unknown = [w for w in names if w not in WORKLOADS]
    if unknown:
        ap.error(f"--workloads: unknown workload(s) {', '.join(unknown)} (known: {', '.join(WORKLOADS)})")
    rep = max(1, a.repeat)
    if a.notebooks:
        from .bench_notebooks import notebooks_main
        return notebooks_main(a.baseline, a.json)
    results = {"machine": machine(), "simcore": [], "worst": [], "oclgrind": [], "numba": [], "memory": None}
    trees = None
    if a.baseline:                      # before anything long: a baseline that cannot run is said at once
        from .bench_tree import TreeError, TreeProcess, this_tree
        trees = (TreeProcess(a.baseline, "baseline"), TreeProcess(this_tree(), "current"))
        try:
            for tree in trees:
                tree.start()
        except TreeError as e:
            for tree in trees:
                tree.close()
            print(f"python -m simcore.bench: error: --baseline: cannot run simcore from {e}", file=sys.stderr)
            return 2
    try:
        return run_all(a, sizes, names, rep, results, trees)
    finally:
        for tree in trees or ():
            tree.close()


def run_all(a, sizes, names, rep, results, trees):
    print(f"simcore benchmark on {results['machine']}")
    t0 = time.perf_counter()
    module()
    print(f"compiling the four kernels: {fmt_s(time.perf_counter() - t0)}; median of {rep} runs [range]\n")

    sim = {}

    def simcore_point(case):
        key = (case.label, case.size)
        if key not in sim:
            sim[key] = (run_simcore(case, True, rep), run_simcore(case, False, rep))
        return sim[key]

    rows = []
    for name in names:
        for n in points_n(sizes):
            case = course_case(name, n)
            on, off = simcore_point(case)
            mem_on = run_simcore(case, True, 1, memory=True)["peak_bytes"]
            mem_off = run_simcore(case, False, 1, memory=True)["peak_bytes"]
            results["simcore"].append({"workload": name, "n": n, "checks_on": on, "checks_off": off,
                                       "peak_bytes_on": mem_on, "peak_bytes_off": mem_off})
            rows.append([name, fmt_n(n), fmt_stat(on["times"]), f"{on['thread_instructions'] / median(on['times']) / 1e6:.1f}",
                         fmt_stat(off["times"]), f"{off['thread_instructions'] / median(off['times']) / 1e6:.1f}",
                         f"{mem_on / 2 ** 20:.0f} / {mem_off / 2 ** 20:.0f}", f"{on['verdict']} / {off['verdict']}"])
            print(f"  ran {name} at {fmt_n(n)}", file=sys.stderr)
    print(table(["workload", "threads", "checks on", "M thr-inst/s", "checks off", "M thr-inst/s",
                 "peak MiB on/off", "output on/off"], rows))
    print("(2^11 = the lesson-sized launch, 8 blocks; peak MiB: tracemalloc peak of one launch, untimed;\n"
          " launched with max_steps=10**8, which turns the watchdog's probes off: a grader's launch,\n"
          " without max_steps, also pays for them, as the schedules table's launches do)\n")

    worst = [] if a.no_worst else worst_cases(a.quick) + narrow_loop_cases(a.quick)
    if worst:
        rows = []
        for case in worst:
            on, off = simcore_point(case)
            results["worst"].append({"case": case.label, "size": case.size, "checks_on": on, "checks_off": off})
            rows.append([case.label, case.size, fmt_stat(on["times"]), fmt_stat(off["times"]),
                         f"{on['verdict']} / {off['verdict']}"])
            print(f"  ran {case.label}", file=sys.stderr)
        print("worst cases")
        print(table(["case", "size", "checks on", "checks off", "output on/off"], rows))
        print()

    if not a.no_schedules:
        rows, results["schedules"] = schedule_lines(names, points_n(sizes), rep, a.schedule_budget)
        print(f"schedules (checks on; CPU time of one launch, median of {rep} [range]; schedules interleaved "
              f"point by point; at most {a.schedule_budget:.0f} s of CPU per schedule and point)")
        print(table(SCHEDULE_HEADERS, rows))
        print("(vs lockstep = median / lockstep's median at the same point; output against the numpy reference)\n")

    if not a.no_memory:
        n_mem = parse_sizes(a.memory_size)[0] if a.memory_size else (2 ** 16 if a.quick else 2 ** 20)
        sizes_mem = memory_over_launches(n_mem, 20)
        results["memory"] = {"n": n_mem, "rss_bytes": sizes_mem}
        if sizes_mem:
            print(f"memory over 20 launches of the {fmt_n(n_mem)} reduction (fresh process, cyclic GC off): "
                  f"{fmt_memory(sizes_mem)}\n")
        else:
            print("memory over launches: not measured (needs /proc)\n")

    if trees:
        base, current = trees
        print(f"before/after: baseline {base.label} ({base.root}) against the current tree {current.label} "
              f"({current.root})")
        print(f"each tree in its own process (PYTHONPATH=tree), runs interleaved (baseline, current, baseline, ...); "
              f"CPU time of one launch (process_time), median of {rep} [range] after an untimed first launch; "
              f"at most {a.peer_budget:.0f} s a launch (--peer-budget)")
        points = [course_case(name, n) for name in names for n in points_n(sizes)] + worst
        rows, records = before_after(points, base, current, rep, a.peer_budget)
        print(table(BEFORE_AFTER_HEADERS, rows))
        print("(speedup = baseline median / current median; output: each side's outputs, every run, against the "
              "same numpy reference)")
        results["baseline"] = {"baseline": {"root": base.root, "label": base.label, "simcore": base.info["simcore"]},
                               "current": {"root": current.root, "label": current.label,
                                           "simcore": current.info["simcore"]},
                               "points": records, "memory": None}
        if not a.no_memory:
            from .bench_tree import TreeError
            try:
                base_mem = memory_over_launches(n_mem, 20, base.root)
            except TreeError as e:
                base_mem, why = None, str(e)
            else:
                why = "needs /proc"
            results["baseline"]["memory"] = {"n": n_mem, "rss_bytes": base_mem}
            print(f"memory over 20 launches of the {fmt_n(n_mem)} reduction (fresh process each, cyclic GC off):")
            print(f"  baseline {base.label}: {fmt_memory(base_mem) if base_mem else 'not measured (' + why + ')'}")
            print(f"  current {current.label}: {fmt_memory(sizes_mem) if sizes_mem else 'not measured'}")
        print()

    if a.profile:
        p = profile_launch("reduce", parse_sizes(a.profile_size)[0], checks=True)
        results["profile"] = p
        print(fmt_profile(p))
        print()

    if a.no_peers:
        return results_out(a, results)
    if benchmarks_dir() is None:
        print("peers: benchmarks/ not found next to simcore (run from a source checkout)")
        return results_out(a, results)

    # ------------------------------------------------------------------ Oclgrind
    from .bench_peers import print_interleaved, print_whole_process, whole_process
    if not oclgrind_available():
        print("Oclgrind: not installed (apt-get install oclgrind); skipped\n")
    else:
        points = [course_case(name, n) for name in names for n in points_n(sizes)] + worst
        print_interleaved(points, rep, a.peer_budget, results["oclgrind"])
    n_whole = parse_sizes(a.whole_process_size)[0]
    results["whole_process"] = whole_process("reduce", n_whole, rep, a.peer_budget, oclgrind_available())
    print_whole_process(results["whole_process"])

    # ------------------------------------------------------------------ Numba
    py = numba_python(a.numba_python)
    if py is None:
        print("Numba's CUDA simulator: numba not installed (pip install numba, or pass --numba-python); skipped")
    else:
        rows = []
        runs = [(name, LESSON) for name in names if WORKLOADS[name][3]]
        if "reverse" in names:
            runs.append(("reverse", 2 ** 12 if a.quick else 2 ** 16))
        for name, n in runs:
            on, off = simcore_point(course_case(name, n))
            r = run_numba(py, name, n, rep)
            results["numba"].append(r | {"workload": name, "n": n})
            rows.append([name, fmt_n(n), fmt_s(median(off["times"])), fmt_stat(r["times"]),
                         fmt_ratio(r["times"], off["times"]), r["verdict"], r.get("note", "")])
            print(f"  numba {name} at {fmt_n(n)}", file=sys.stderr)
        if "shuffle" in names:
            rows.append(["shuffle", "-", "-", "n/a", "-", "-", "no shuffles in the simulator"])
        print(f"Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, {py})")
        print(table(["workload", "threads", "simcore off", "numba sim", "ratio", "output", "note"], rows))
        print("(ratio = Numba simulator median / simcore median; too slow for larger launches)")
    return results_out(a, results)


def results_out(a, results):
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
