"""Grading a class in shards: one Kubernetes pod (or one machine) per shard, then one gather.

``python -m barrier_course.grading.class_grading ASSIGNMENT --shard I/N --scores DIR`` grades the
students of shard ``I`` of ``N`` (0-based: the students of ``submitted/`` in sorted order,
every ``N``-th from the ``I``-th) and writes each score to ``DIR/<key>.json`` (the keys of
:func:`barrier_course.nbgrader.isolation.score_key`); it leaves the gradebook alone. Then the
same command without ``--shard`` (``--scores DIR``, optionally ``--report``) finds every
score there, grades nothing again, and records them through ``nbgrader autograde`` as a
plain run does. On one machine ``--jobs N`` does all of it in one process;
deploy/z2jh/grading-job.yaml runs the shards as an Indexed Job (``I`` is
``$JOB_COMPLETION_INDEX``) over the course folder on the shared volume.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["parse_shard", "shard_students"]


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N), with 0 <= I < N; a clear error otherwise."""
    try:
        index, count = (int(part) for part in str(text).split("/"))
    except ValueError:
        raise SystemExit(f"--shard {text!r}: expected I/N, e.g. --shard 0/4") from None
    if count < 1 or not 0 <= index < count:
        raise SystemExit(f"--shard {text!r}: I must be 0 to N-1 and N at least 1")
    return index, count


def shard_students(submitted: Path, index: int, count: int) -> list[str]:
    """The students (folder names under ``submitted``) of shard ``index`` of ``count``."""
    submitted = Path(submitted)
    students = sorted(p.name for p in submitted.iterdir() if p.is_dir()) if submitted.is_dir() else []
    return students[index::count]
