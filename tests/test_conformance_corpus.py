"""Every kernel of conformance/ on the simulator: the verdict simcore gives must be the
expected one, and a defined kernel's outputs must equal the numpy reference.

Entries for which simcore is known to be wrong (and the expectation is known to be right)
are listed in KNOWN_WRONG with the observed behaviour; they are strict xfails, so a fix in
simcore shows up as an XPASS failure and the entry must then leave the list.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance import corpus, runner  # noqa: E402

# name -> reason (observed vs expected)
KNOWN_WRONG = {
    "named_barrier_halves": "simcore emits a SimWarning ('bar.sync() completed with 256 of 512 "
        "threads; the other 256 had already exited') for a named barrier whose explicit count "
        "equals its group: that is the intended use of named barriers, not fragile code",
    "ptx_bar_arrive": "simcore emits a SimWarning ('completed with 128 of 256 threads; the other "
        "128 had already exited') although 128 bar.arrive + 128 bar.sync meet the explicit count",
    "incdec": "postfix ++/-- yield the updated value (int p = c++ gives c + 1)",
    "size_t_index": "CompileError: type 'size_t' is not in simcore's subset",
    "device_call_nested": "SimulatorError NameError 'v_tmp_N' when a __device__ call is an "
        "argument of another call",
    "shared_scalar": "CompileError 'cannot assign a pointer to a int' when a __shared__ scalar "
        "is read as a value",
    "global_cross_block": "documented limitation (lesson 01, section 6): simcore's race checks "
        "compare threads of one block, so a race between blocks is not reported",
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
        assert f'extern "C" __global__ void {e.kernel}(' in src, e.name
