"""The corpus fuzzer in CI: seeded mutants of every corpus kernel (tools/fuzz_corpus.py:
statements deleted, duplicated, swapped; constants and operators changed; barriers moved into
branches; files truncated; tokens inserted or deleted) compile to a CompileError at a line or
launch to the end, a KernelFault or a LaunchError: never an internal error, never a hang.
`python tools/fuzz_corpus.py --count 2000` runs the long version by hand."""
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import fuzz_corpus as fz  # noqa: E402

import simcore  # noqa: E402


def describe(bad):
    k, name, done, outcome, err, src = bad[0]
    return (f"{len(bad)} bad mutant(s); the first, mutant {k} of {name} ({', '.join(done)}): {outcome}: "
            f"{type(err).__name__}: {err}\n--- source ---\n{src}")


@pytest.mark.parametrize("seed,count,kinds", [(11, 220, fz.KINDS), (12, 160, fz.SEMANTIC)],
                         ids=["all mutations", "mutations that keep the text C"])
def test_mutated_corpus_kernels_fail_cleanly(seed, count, kinds):
    outcomes, bad = fz.fuzz(count, seed, kinds=kinds)
    assert not bad, describe(bad)
    assert outcomes["ran"] + outcomes["fault"] >= count // 5     # the mutants do reach the simulator


def test_the_harness_calls_a_raw_exception_internal_and_a_lineless_error_a_problem(monkeypatch):
    entry = fz.corpus.BY_NAME["reverse_tile"]

    def broken(*a, **k):
        raise ValueError("boom")
    monkeypatch.setattr(fz.simcore, "RawModule", broken)
    assert fz.run_mutant(entry, entry.source)[0] == "internal"

    def lineless(*a, **k):
        raise simcore.CompileError("syntax error: something", construct="syntax")
    monkeypatch.setattr(fz.simcore, "RawModule", lineless)
    assert fz.run_mutant(entry, entry.source)[0] == "no_line"


@pytest.mark.parametrize("src,line", [
    ('extern "C" __global__ void k(const int* a, int* out,\n   ', 1),
    ('struct P { float x; };\n__device__ int f(int a) { return a; }\nextern', 3),
])
def test_a_cut_off_file_is_a_syntax_error_at_its_last_line(src, line):
    with pytest.raises(simcore.CompileError) as e:
        simcore.RawModule(code=src)
    assert e.value.line == line and "syntax error" in str(e.value)


def test_the_hang_guard_counts_cpu_time_not_a_loaded_machines_wall_time():
    # waiting (what a loaded machine does to a mutant) uses no CPU and is no hang ...
    with fz.hang_guard(1):
        time.sleep(1.5)
    # ... a loop that keeps the CPU busy is
    with pytest.raises(fz.Hang, match="CPU time"):
        with fz.hang_guard(1):
            while True:
                pass
