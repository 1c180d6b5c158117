"""Helpers for the GPU barriers course, in three folders.

lessons/    what the lessons call: notebook (setup(), the first code cell of every lesson),
            faults, widgets, traces, warps, occupancy, cost_model, pictures, player, tuning,
            tuning_kernels, handouts
grading/    the autograder behind every nbgrader test cell (checks: check_kernel, try_kernel,
            summary), the isolated scorer (autograde), class grading and its report, speed
            points, hidden-test data, the audit and its mutants
nbgrader/   nbgrader and Jupyter server plumbing: the exchange, hidden tests, isolated
            execution, the shared-server exchange, the release guard, the contents manager

Old module paths (`barrier_course.player`, ...) still import: old_paths.py.
"""

__all__ = ["grading"]

from .old_paths import install as install_old_paths

install_old_paths()
