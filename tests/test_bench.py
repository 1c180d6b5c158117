"""The benchmark's checks: 'exact' only for bit-equal outputs, and simcore's outputs are exact
against references computed in the kernels' own float32 order."""
import numpy as np
import pytest

from simcore import bench


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


def test_times_are_reported_as_median_and_range():
    assert bench.fmt_stat([0.010, 0.030, 0.020]) == "20 ms [10-30]"
    assert bench.fmt_stat([2.0]) == "2.00 s (1 run)"
