"""benchmarks/estimate_speed.py times launches named after validation sweeps: each default launch
names a measured sweep at one of its measured block sizes (a renamed sweep would otherwise
only fail when the benchmark runs)."""

import sys

from benchmarks import estimate_speed
from course_testing import ROOT


def test_every_default_launch_is_a_measured_sweep_at_a_measured_block():
    sys.path.insert(0, str(ROOT / "tools"))
    import validate_timing_model  # noqa: PLC0415

    measured = {name: set(blocks) for name, _, blocks, _ in validate_timing_model.sweeps()}
    for launch in estimate_speed.SLOW:
        name, block = launch.rsplit("@", 1)
        assert name in measured, launch
        assert int(block) in measured[name], launch
