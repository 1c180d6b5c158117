"""tools/gpu_exercise_probe.py finds every exercise's starting kernel (the locked demo cell:
``broken_source = r'''...'''`` and one ``try_kernel(...)``) and, on the simulator, reports the
fault the student is shown. The lead runs the same script on an H200 (``--backend cupy``);
this keeps it working for every exercise's demo shape (make_args returning a tuple or a dict,
extra setup helpers, a demo with schedule or checks options)."""

import json

import pytest

from course_testing import ROOT
from tools.gpu_exercise_probe import _captured_launch, _outcome

SOLUTIONS = sorted((ROOT / "solutions").glob("ex*/*.ipynb"))

# What each starting kernel does on the simulator (the story of each exercise says why);
# the tuning exercise starts from a correct, slow kernel.
EXPECTED_FAULT = {
    "ex01_tail_handling": "deadlock",
    "ex02_loop_trip_counts": "deadlock",
    "ex03_convergence_loop": "race",
    "ex04_partial_warp_reduction": "undefined_value",
    "ex05_legacy_warp_sync": "race",
    "ex06_named_barrier_pipeline": "divergent_barrier",
    "ex07_grid_wide_sum": "race",
    "ex08_tune_block_sum": None,
}


def test_every_exercise_is_listed():
    assert sorted(p.parent.name for p in SOLUTIONS) == sorted(EXPECTED_FAULT)


@pytest.mark.parametrize("notebook", SOLUTIONS, ids=[p.parent.name for p in SOLUTIONS])
def test_probe_reports_the_starting_kernels_fault(notebook, capsys):
    launch = _captured_launch(notebook)
    assert "broken_source" not in launch["source"] and launch["name"] in launch["source"]
    outcome = _outcome(launch, "sim", range(2))
    want = EXPECTED_FAULT[notebook.parent.name]
    if want is None:
        assert outcome == {"launches": 2, "wrong": 0}, outcome
    else:
        assert outcome.get("fault") == want and outcome["launches"] == 1, outcome
        # the reported line is a line of the starting kernel
        assert 1 <= outcome["line"] <= launch["source"].count("\n") + 1
    json.dumps(outcome)     # the child prints it as JSON
