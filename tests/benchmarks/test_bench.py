"""The benchmark's checks: 'exact' only for bit-equal outputs, and simcore's outputs are exact
against references computed in the kernels' own float32 order."""
import numpy as np
import pytest

from benchmarks import bench, bench_cli


def test_verdict_says_exact_only_when_bit_equal():
    ref = np.array([1.0, 2.0, 3.0], np.float32)
    assert bench.verdict(ref.copy(), ref) == "exact"
    assert bench.verdict(np.nextafter(ref, np.float32(10)), ref) == "allclose"
    assert bench.verdict(ref + 1, ref) == "WRONG"
    assert bench.verdict(ref[:2], ref) == "WRONG"


@pytest.mark.parametrize("name", list(bench.WORKLOADS))
def test_simcore_is_exact_on_the_course_workloads(name):
    case = bench.course_case(name, bench.LESSON)
    for checks in (True, False):
        r = bench.run_simcore(case, checks, repeat=2)
        assert r["verdict"] == "exact" and len(r["times"]) == 2


def test_simcore_is_exact_on_the_small_worst_cases():
    for case in bench.worst_cases(quick=True)[:3]:
        assert bench.run_simcore(case, True, repeat=1)["verdict"] == "exact", case.label


def test_simcore_is_exact_on_the_one_lane_loops_with_checks_on_and_off():
    for case in bench.narrow_loop_cases(quick=True):
        for checks in (True, False):
            assert bench.run_simcore(case, checks, repeat=1)["verdict"] == "exact", (case.label, checks)


def test_times_are_reported_as_median_and_range():
    assert bench.fmt_stat([0.010, 0.030, 0.020]) == "20 ms [10-30]"
    assert bench.fmt_stat([2.0]) == "2.00 s (1 run)"


# ----------------------------------------------------------------- --baseline, --profile
import json
import os
import shutil
import textwrap

from benchmarks import bench_tree

SMALL = ["--sizes", "11", "--workloads", "reduce", "--no-worst", "--no-peers", "--repeat", "2"]

# A stand-in for an older simcore: its kernels accept no max_steps (as an old tree might not),
# "reduce" writes wrong numbers, "reverse" takes 0.3 s, "shuffle" 5 s.
FAKE_SIMCORE = textwrap.dedent('''
    import time
    import numpy as np

    class _Kernel:
        def __init__(self, name):
            self.name = name

        def __call__(self, grid, block, args, *, checks=True):
            if self.name == "reverse":
                time.sleep(0.3)
                args[0][...] = args[1].reshape(-1, 256)[:, ::-1].ravel()
            elif self.name == "shuffle":
                time.sleep(5)
            else:
                args[0][...] = 1.0

    class RawModule:
        def __init__(self, code=None, options=()):
            pass

        def get_function(self, name):
            return _Kernel(name)
''')


def make_tree(tmp_path, name, init_text):
    pkg = tmp_path / name / "simcore"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(init_text)
    return tmp_path / name


def copy_of_this_tree(tmp_path):
    src = os.path.join(bench_tree.this_tree(), "simcore")
    shutil.copytree(src, tmp_path / "copy" / "simcore", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "copy"


def test_baseline_runs_side_by_side_interleaved_with_outputs_checked(tmp_path, capsys):
    base = copy_of_this_tree(tmp_path)
    out_json = tmp_path / "r.json"
    rc = bench_cli.main(SMALL + ["--memory-size", "11", "--baseline", str(base), "--json", str(out_json)])
    text = capsys.readouterr().out
    assert rc == 0
    r = json.load(open(out_json))["baseline"]
    assert r["baseline"]["simcore"].startswith(str(base))         # imported from DIR, not from this tree
    assert r["current"]["simcore"].startswith(bench_tree.this_tree())
    assert [(p["case"], p["size"], p["checks"]) for p in r["points"]] == [("reduce", "2^11", True),
                                                                          ("reduce", "2^11", False)]
    for p in r["points"]:
        for side in ("baseline", "current"):
            assert p[side]["verdict"] == "exact" and len(p[side]["cpu"]) == 2
        timed = [who for who in p["order"] if "warm-up" not in who]
        assert timed == ["baseline", "current", "baseline", "current"]
    assert len(r["memory"]["rss_bytes"]) == 20
    assert f"before/after: baseline {base}" in text               # not a git tree: named by its path
    assert "exact / exact" in text and "memory over 20 launches" in text and "baseline " in text


def test_a_baseline_with_wrong_output_is_labelled_wrong(tmp_path, capsys):
    fake = make_tree(tmp_path, "fake", FAKE_SIMCORE)
    rc = bench_cli.main(SMALL + ["--no-memory", "--baseline", str(fake)])
    text = capsys.readouterr().out
    assert rc == 0
    rows = [line for line in text.splitlines() if line.startswith("reduce") and "WRONG / exact" in line]
    assert len(rows) == 2                                          # checks on and off


def test_baseline_runs_fewer_times_over_budget_and_says_why(tmp_path):
    tree = bench_tree.TreeProcess(make_tree(tmp_path, "fake", FAKE_SIMCORE), "baseline")
    try:
        (slow,), order = bench.side_by_side(bench.course_case("reverse", bench.LESSON), [tree], True, 3, budget=0.5)
        assert slow["verdict"] == "exact" and len(slow["times"]) == 1
        assert "1 of 3 runs (over budget)" in slow["note"]
        (stuck,), _ = bench.side_by_side(bench.course_case("shuffle", bench.LESSON), [tree], True, 3, budget=0.5)
        assert stuck["times"] == [] and "over the time limit" in stuck["note"]
        assert "warm-up" in stuck["note"]
    finally:
        tree.close()


@pytest.mark.parametrize("init_text, expected", [
    (None, "no simcore package there"),
    ("raise ImportError('an old tree that does not import')", "an old tree that does not import"),
])
def test_a_baseline_that_cannot_import_names_the_directory(tmp_path, capsys, init_text, expected):
    # an empty directory must not fall back on this tree (or an editable install of the project)
    base = make_tree(tmp_path, "broken", init_text) if init_text else tmp_path / "empty"
    base.mkdir(exist_ok=True)
    rc = bench_cli.main(SMALL + ["--no-memory", "--baseline", str(base)])
    err = capsys.readouterr().err
    assert rc == 2
    assert str(base) in err and expected in err and "Traceback" not in err


def test_profile_prints_the_top_ten_by_own_time(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    rc = bench_cli.main(["--sizes", "11", "--workloads", "reduce", "--no-worst", "--no-peers", "--no-memory",
                     "--repeat", "1", "--profile", "--profile-size", "11", "--json", str(out_json)])
    text = capsys.readouterr().out
    assert rc == 0
    p = json.load(open(out_json))["profile"]
    assert p["n"] == 2 ** 11 and p["checks"] and p["verdict"] == "exact" and len(p["top"]) == 10
    own = [r["tottime"] for r in p["top"]]
    assert own == sorted(own, reverse=True) and 0 < sum(r["share"] for r in p["top"]) <= 1
    assert any(r["function"].startswith("simcore/") for r in p["top"])
    lines = text[text.index("profile: cProfile"):].splitlines()
    assert "top 10 functions by own time" in lines[0]
    assert [line.split()[0] for line in lines[3:13]] == [str(k) for k in range(1, 11)]
    assert p["top"][0]["function"] in lines[3]


# ------------------------------------------- interleaved peers, whole process, --notebooks
from benchmarks import bench_notebooks, bench_peers


def test_the_interleaved_table_gives_cpu_and_wall_ratios_for_both_check_settings():
    runs = {"simcore on": [(0.02, 0.01), (0.04, 0.01)], "oclgrind --data-races": [(0.4, 0.2), (0.4, 0.2)],
            "simcore off": [(0.01, 0.005)], "oclgrind": []}
    record = {"case": "reduce", "size": "2^11", "runs": runs, "note": "",
              "verdicts": {"simcore on": "exact", "oclgrind --data-races": "exact", "simcore off": "exact",
                           "oclgrind": "-"}}
    on, off = bench_peers.interleaved_rows(record)
    assert on[5] == "20.0x" and on[8] == "13.3x"        # CPU 0.2 / 0.01, wall 0.4 / 0.03
    assert off[4] == "-" and off[5] == "-"              # no peer run: no ratio invented


def test_simcore_and_oclgrind_take_turns_on_a_point(monkeypatch):
    order = []
    monkeypatch.setattr(bench_peers, "simcore_timed", lambda case, checks: order.append(f"sim {checks}") or (0.1, 0.1, "exact"))
    monkeypatch.setattr(bench_peers, "oclgrind_timed", lambda case, races, t: order.append(f"ocl {races}") or (1.0, 1.0, None))
    monkeypatch.setattr(bench, "run_oclgrind_once", lambda case, races, check, timeout: (1.0, "exact", None))
    record = bench_peers.interleaved_point(bench.course_case("reduce", bench.LESSON), 2, 60)
    assert order == ["sim True", "ocl True", "sim False", "ocl False"] * 2
    assert all(len(r) == 2 for r in record["runs"].values())


def test_the_whole_process_line_runs_import_compile_and_launch_in_a_fresh_process():
    wall, cpu, split = bench_peers.simcore_process("reduce", 2 ** 11)
    assert split["verdict"] == "exact"
    assert set(split) >= {"import", "inputs", "compile", "launch"}
    assert cpu >= split["import"] + split["compile"] + split["launch"]


def test_notebooks_mode_dispatches_before_any_simulator_run(monkeypatch):
    calls = []
    monkeypatch.setattr(bench_notebooks, "notebooks_main", lambda baseline, json_path: calls.append((baseline, json_path)) or 0)
    assert bench_cli.main(["--notebooks", "--json", "x.json"]) == 0
    assert calls == [(None, "x.json")]


def test_a_notebook_is_timed_cell_by_cell_and_its_errors_named(tmp_path):
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), nbformat.v4.new_code_cell("x = sum(range(10**5))"),
                nbformat.v4.new_code_cell("raise ValueError('no')"), nbformat.v4.new_code_cell("y = 1")]
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, str(path))
    r = bench_notebooks.run_notebook(path)
    assert [k for k, _ in r["cells"]] == [0, 1, 2] and r["errors"] == [1]
    assert r["kernel_cpu"] > 0
    line = bench_notebooks.notebook_line(path, r, target=0.0)
    assert "OVER" in line and "ERRORS in cells [1]" in line
def test_the_schedules_table_has_a_line_per_schedule_with_outputs_checked(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    rc = bench_cli.main(["--sizes", "11", "--workloads", "reduce", "--no-worst", "--no-peers", "--no-memory",
                     "--repeat", "2", "--json", str(out_json)])
    text = capsys.readouterr().out
    assert rc == 0
    (point,) = json.load(open(out_json))["schedules"]
    assert point["workload"] == "reduce" and point["n"] == 2 ** 11
    runs = point["schedules"]
    assert list(runs) == list(bench.SCHEDULES)
    for schedule, r in runs.items():
        assert r["verdict"] == "exact" and len(r["cpu"]) == 2 and r["note"] == "", schedule
    # one warp per step under the per-warp schedules: 64 warps for each of lockstep's block steps
    assert runs["adversarial"]["steps"] == runs["round_robin"]["steps"] > 32 * runs["lockstep"]["steps"]
    table_lines = text[text.index("schedules (checks on"):].splitlines()[3:7]
    assert [line.split()[2] for line in table_lines] == list(bench.SCHEDULES)
    assert table_lines[0].split()[6] == "1.0x"


def test_a_schedule_over_budget_runs_fewer_times_or_is_stopped_and_says_so():
    res = bench.schedule_point(bench.course_case("reduce", bench.LESSON), repeat=3, budget=1e-6)
    # lockstep's 54 steps finish before the watchdog's first look at the clock: one run, noted
    assert len(res["lockstep"]["cpu"]) == 1 and "1 of 3 runs (over budget)" in res["lockstep"]["note"]
    for schedule in bench.SCHEDULES[1:]:       # thousands of steps: the time limit stops them
        r = res[schedule]
        assert r["cpu"] == [] and r["verdict"] == "-" and "stopped (time_limit)" in r["note"], schedule
