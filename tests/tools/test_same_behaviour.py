"""tools/same_behaviour.py: a launch that the wall-clock time limit stopped is recognised (its
steps differ by nature, so it is listed apart), whatever words the fault uses; any other
difference between the trees is reported."""

import json

import numpy as np
import pytest

import simcore
from tools import same_behaviour

SPIN = 'extern "C" __global__ void k(int *o) { unsigned i = 0; while (o[0] == 0) i = i * 3 + 1; o[1] = i; }'


def recorded(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_launch_stopped_by_the_time_limit_is_recorded_as_such(tmp_path, monkeypatch):
    runner = same_behaviour.launch_runner()
    monkeypatch.setattr(runner, "run_launch", runner.run_launch)   # undone after the test
    log = tmp_path / "launches.jsonl"
    same_behaviour.install_recorder(log)
    with pytest.raises(simcore.TimeLimit):
        simcore.RawKernel(SPIN, "k")((1,), (32,), (np.zeros(2, np.int32),), time_limit=0.2)
    simcore.RawKernel(SPIN, "k")((1,), (1,), (np.ones(2, np.int32),))
    stopped, finished = recorded(log)
    assert stopped["time_limit"] is True and stopped["fault"][0] == "TimeLimit"
    assert finished["time_limit"] is False and finished["fault"] is None


def _log(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_steps_of_time_limited_launches_are_listed_apart_and_other_differences_reported(tmp_path):
    def launch(steps, time_limit, kernel="k"):
        return {"kernel": kernel, "options": ["lockstep", "independent", 0], "steps": steps,
                "time_limit": time_limit}
    base = _log(tmp_path / "base.jsonl", [launch(100, True), launch(5, False, "j")])
    new = _log(tmp_path / "new.jsonl", [launch(120, True), launch(6, False, "j")])
    n, differ, timed = same_behaviour.compare(base, new)
    assert n == 2 and len(timed) == 1 and timed[0].startswith("k ")
    assert len(differ) == 1 and differ[0].startswith("j ") and "steps" in differ[0]


def test_a_launch_added_in_the_new_tree_is_listed_and_does_not_shift_the_others(tmp_path):
    def launch(kernel, steps):
        return {"kernel": kernel, "options": ["lockstep", "independent", 0], "steps": steps,
                "time_limit": False}
    base = _log(tmp_path / "base.jsonl", [launch("a", 1), launch("c", 3)])
    new = _log(tmp_path / "new.jsonl", [launch("a", 1), launch("b", 2), launch("c", 3)])
    n, differ, timed = same_behaviour.compare(base, new)
    assert n == 2 and not timed
    assert differ == ["b ['lockstep', 'independent', 0]: launched on the new tree only"]
