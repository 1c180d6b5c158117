"""The lesson's H200 evidence for fences, flags and locks is the committed conformance table's,
and says plainly where the GPU run proves nothing."""
import json

import pytest

from barrier_course.lessons import gpu_evidence


def test_the_shipped_evidence_matches_the_conformance_table():
    with open(gpu_evidence.TABLE_FILE) as f:
        table = json.load(f)
    assert gpu_evidence.load() == gpu_evidence.extract(table), (
        "course/data/h200-fences-and-locks.json is stale: run python -m barrier_course.lessons.gpu_evidence")


def test_every_forward_progress_and_release_acquire_entry_is_covered():
    with open(gpu_evidence.TABLE_FILE) as f:
        names = {r["name"] for r in json.load(f)["rows"] if r["name"].startswith(("progress_", "ra_"))}
    assert names and names == set(gpu_evidence.rows_by_name())


def test_a_broken_twin_whose_gpu_output_looked_right_is_not_called_right():
    row = gpu_evidence.rows_by_name()["ra_flag_without_fence"]
    assert row["rule"] == "race" and row["gpu_output"] == "as intended"
    assert "right" not in gpu_evidence.evidence_table(["ra_flag_without_fence"]).splitlines()[-1]


def test_kernels_that_hung_on_the_h200_are_known_so_a_lesson_does_not_launch_them():
    assert gpu_evidence.gpu_hung("ra_plain_load_flag")
    assert not gpu_evidence.gpu_hung("ra_fence_atomic_flag")


def test_the_table_names_an_unknown_entry():
    with pytest.raises(KeyError, match="no_such_kernel"):
        gpu_evidence.evidence_table(["no_such_kernel"])


def test_a_hung_row_is_read_from_the_gpu_outcome():
    row = gpu_evidence.evidence_row({"name": "x", "expected": "step_limit", "sim": {"verdict": "step_limit"},
                                     "gpu": {"outcome": "hung", "detail": "killed after 20 s"},
                                     "racecheck": {"outcome": "skipped"}})
    assert row == {"name": "x", "rule": "step_limit", "simcore": "step_limit", "gpu": "hung (killed after 20 s)",
                   "gpu_output": "-", "racecheck": "not run"}


def test_every_corpus_entry_lesson_06_names_has_h200_evidence():
    import re
    from pathlib import Path
    lesson = Path(gpu_evidence.DATA_DIR).parent / "06_what_a_barrier_does_not_do.ipynb"
    named = set(re.findall(r'\\"((?:ra|progress)_[a-z_]+)\\"', lesson.read_text(encoding="utf-8")))
    assert len(named) >= 7, named            # five hand-off variants, the warp lock and its twin
    assert named <= set(gpu_evidence.rows_by_name())
