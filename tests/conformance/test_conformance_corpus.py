"""Every kernel of conformance/ on the simulator: the verdict simcore gives must be the
expected one, and a defined kernel's outputs must equal the numpy reference.

Entries for which simcore is known to be wrong (and the expectation is known to be right)
are listed in KNOWN_WRONG with the observed behaviour; they are strict xfails, so a fix in
simcore shows up as an XPASS failure and the entry must then leave the list.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance import corpus, runner  # noqa: E402

# name -> reason (observed vs expected)
KNOWN_WRONG = {
}


def _params():
    out = []
    for e in corpus.ENTRIES:
        marks = []
        if e.name in KNOWN_WRONG:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[e.name]))
        out.append(pytest.param(e, id=e.name, marks=marks))
    return out


@pytest.mark.parametrize("entry", _params())
def test_corpus_entry(entry):
    res = runner.run_sim(entry)
    assert res.verdict == entry.expect, (
        f"{entry.name}: expected {entry.expect!r}, simcore said {res.verdict!r}"
        + (f" ({entry.why})" if entry.why else "") + f"\n{res.detail}")
    if entry.defined:
        problems = runner.check_outputs(runner.expected_outputs(entry), res.args,
                                        rtol=entry.rtol, atol=entry.atol)
        assert problems is None, f"{entry.name}: outputs differ from numpy:\n{problems}"


def test_corpus_size_and_coverage():
    assert len(corpus.ENTRIES) >= 45
    verdicts = {e.expect for e in corpus.ENTRIES}
    missing = set(corpus.FAULT_KINDS) - verdicts
    assert not missing, f"no corpus kernel expects {sorted(missing)}"
    assert {"ok", "warning"} <= verdicts


def test_every_cu_file_has_an_entry():
    files = {p.name for p in corpus.HERE.glob("*.cu")}
    used = {e.path.name for e in corpus.ENTRIES}
    assert files == used, (f"without entry: {sorted(files - used)}; "
                           f"missing file: {sorted(used - files)}")


def test_every_kernel_is_extern_c_and_named():
    for e in corpus.ENTRIES:
        src = e.source
        assert src.count("__global__") == 1, e.name
        if e.name_expressions:      # a template kernel (C++ linkage), instantiated by name
            assert e.kernel in e.name_expressions and e.kernel.startswith(e.name + "<"), e.name
            assert f"__global__ void {e.name}(" in src, e.name
            continue
        assert f'extern "C" __global__ void {e.kernel}(' in src, e.name


# ----------------------------------------------------------------------------- the GPU tool
def test_gpu_tool_parses_sanitizer_summaries():
    sys.path.insert(0, str(ROOT / "tools"))
    import gpu_conformance as gc

    sync = ("========= COMPUTE-SANITIZER\n"
            "========= Barrier error detected. Divergent thread(s) in block.\n"
            "=========     at 0x1a0 in ifelse_straddle\n"
            "========= ERROR SUMMARY: 4 errors\n")
    s = gc.parse_sanitizer(sync)
    assert s["errors"] == 4 and s["hazards"] is None
    assert s["first"] == ["Barrier error detected. Divergent thread(s) in block."]
    race = ("========= Error: Race reported between Write access at 0x90 in k\n"
            "========= RACECHECK SUMMARY: 2048 hazards displayed (2048 errors, 0 warnings)\n"
            "========= ERROR SUMMARY: 2048 errors\n")
    r = gc.parse_sanitizer(race)
    assert (r["errors"], r["hazards"]) == (2048, 2048)
    assert gc.parse_sanitizer("killed")["errors"] is None


def test_gpu_tool_explains_disagreements():
    sys.path.insert(0, str(ROOT / "tools"))
    import gpu_conformance as gc

    row = {"name": "global_race_in_block", "expected": "race", "sim": {"verdict": "race"},
           "gpu": {"outcome": "completed"},
           "synccheck": {"outcome": "completed", "errors": 0},
           "racecheck": {"outcome": "completed", "errors": 0, "hazards": 0}}
    assert any("only checks shared memory" in n for n in gc.explain(row))
    row = {"name": "reverse_tile", "expected": "ok", "sim": {"verdict": "ok"},
           "gpu": {"outcome": "completed", "vs_sim": {"equal": True}},
           "synccheck": {"outcome": "completed", "errors": 0},
           "racecheck": {"outcome": "completed", "errors": 0, "hazards": 0}}
    assert gc.explain(row) == []


def test_gpu_tool_without_gpu(tmp_path):
    import subprocess

    tool = ROOT / "tools" / "gpu_conformance.py"
    p = subprocess.run([sys.executable, str(tool), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    from simcore.cupy_backend import gpu_available

    if gpu_available()[0]:
        pytest.skip("a GPU is present: the no-GPU message is not shown")
    assert p.returncode == 2
    assert "no GPU to run on" in p.stderr and "--sim-only" in p.stderr
    p = subprocess.run([sys.executable, str(tool), "--out", str(tmp_path), "--sim-only",
                        "--jobs", "2", "--entries", "reverse_tile,war_race"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    md = (tmp_path / "h200.md").read_text()
    assert "| reverse_tile | ok | ok |" in md and "| war_race | race | race |" in md
