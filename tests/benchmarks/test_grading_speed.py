"""benchmarks/grading_speed.py grades every exercise: its list of exercises and their answer
modules comes from the test modules, so a new exercise is benchmarked without editing it."""

import sys

from benchmarks import grading_speed
from course_testing import ROOT


def test_every_exercise_is_benchmarked_with_the_answers_of_its_own_test_module():
    modules = grading_speed.exercises()
    assert sorted(modules) == sorted(p.parent.name for p in (ROOT / "solutions").glob("ex*/ex*.ipynb"))
    for exercise, name in modules.items():
        module = sys.modules[name] if name in sys.modules else __import__(name)
        if name != "hostile_submissions":
            assert module.NOTEBOOK.parent.name == exercise

