"""Grading: the checks behind every nbgrader test cell (checks.py: check_kernel, try_kernel,
summary), the isolated scorer (autograde, autograde_runner), a class's grading and its report
(class_grading, class_shards, class_report), speed points, hidden-test data, the audit's
mutants.

`from barrier_course.grading import check_kernel, summary, try_kernel` (every exercise's test
cells) reads checks.py, imported on first use.
"""
import importlib


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    checks = importlib.import_module(".checks", __name__)
    try:
        return getattr(checks, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
