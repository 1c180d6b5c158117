"""Students' notebooks written before the lessons, grading and nbgrader modules had folders
keep importing them by their old names (`from barrier_course import player`,
`from barrier_course.faults import run_kernel`): the old name is the same module object.

The finder answers only for a name in MOVED that the package's own folder does not hold, so
a module of that name is never shadowed; it sits first in `sys.meta_path` so that no other
finder (an editable install of another checkout) answers for an old name before it. One row
per moved module.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

MOVED = {
    "barrier_course.audit": "barrier_course.grading.audit",
    "barrier_course.autograde": "barrier_course.grading.autograde",
    "barrier_course.autograde_runner": "barrier_course.grading.autograde_runner",
    "barrier_course.class_grading": "barrier_course.grading.class_grading",
    "barrier_course.class_report": "barrier_course.grading.class_report",
    "barrier_course.class_shards": "barrier_course.grading.class_shards",
    "barrier_course.cost_model": "barrier_course.lessons.cost_model",
    "barrier_course.exercise_notebook": "barrier_course.grading.exercise_notebook",
    "barrier_course.faults": "barrier_course.lessons.faults",
    "barrier_course.gpu_evidence": "barrier_course.lessons.gpu_evidence",
    "barrier_course.grading_pool": "barrier_course.grading.pool",
    "barrier_course.handouts": "barrier_course.lessons.handouts",
    "barrier_course.mutants": "barrier_course.grading.mutants",
    "barrier_course.nbgrader_exchange": "barrier_course.nbgrader.exchange",
    "barrier_course.nbgrader_hidden_tests": "barrier_course.nbgrader.hidden_tests",
    "barrier_course.nbgrader_isolation": "barrier_course.nbgrader.isolation",
    "barrier_course.notebook": "barrier_course.lessons.notebook",
    "barrier_course.occupancy": "barrier_course.lessons.occupancy",
    "barrier_course.pictures": "barrier_course.lessons.pictures",
    "barrier_course.player": "barrier_course.lessons.player",
    "barrier_course.release_guard": "barrier_course.nbgrader.release_guard",
    "barrier_course.shared_exchange": "barrier_course.nbgrader.shared_exchange",
    "barrier_course.speed_grading": "barrier_course.grading.speed_grading",
    "barrier_course.student_contents": "barrier_course.nbgrader.student_contents",
    "barrier_course.test_data": "barrier_course.grading.test_data",
    "barrier_course.traces": "barrier_course.lessons.traces",
    "barrier_course.tuning": "barrier_course.lessons.tuning",
    "barrier_course.tuning_kernels": "barrier_course.lessons.tuning_kernels",
    "barrier_course.validation_kernels": "barrier_course.lessons.validation_kernels",
    "barrier_course.warps": "barrier_course.lessons.warps",
    "barrier_course.widgets": "barrier_course.lessons.widgets",
}


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`barrier_course.<old>` -> the module at its new place, imported on first use."""

    def find_spec(self, name, path=None, target=None):
        if name not in MOVED or importlib.machinery.PathFinder.find_spec(name, path) is not None:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module):
        """The module ran at its new place already."""


def install():
    if not any(isinstance(f, OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, OldPaths())
