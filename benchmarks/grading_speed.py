"""CPU time per graded submission, per exercise, for two source trees, interleaved.

    python benchmarks/grading_speed.py --base /path/to/other/tree [--right 2 --wrong 2] [--repeat 1]

For every exercise it grades the solution, some right answers and some wrong answers (the
answers of ``tests/exercise_answers.py``'s test modules and ``tests/hostile_submissions.py``),
the way ``tasks.py grade`` does (a :class:`barrier_course.grading.pool.GradingPool` where the
tree has one, else :func:`barrier_course.grading.autograde.score_answer` per answer), once with each
tree in turn (``--repeat`` times, interleaved), and prints the CPU seconds per submission (the
grading process and every interpreter under it, from ``os.wait4``; the median of the repeats and
their range), the machine's load, and whether both trees gave
the same points per cell. Scores come from simulated state; the CPU figures are the
benchmark's only use of time.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

def exercises() -> dict:
    """{exercise: the test module with its WRONG/RIGHT answers (ex01: the hostile submissions'
    honest answers)}, found from the test modules (tests/exercise_answers.answer_modules)."""
    _tests_on_path()
    from exercise_answers import answer_modules  # noqa: PLC0415

    return answer_modules()


def _tests_on_path() -> None:
    # the exercises' test modules, and the checkout itself: with tests/ on the path and the
    # checkout not (run as a script, the path starts with benchmarks/), tests/barrier_course/
    # (the package's tests, no __init__.py) would be imported as a namespace package named
    # barrier_course, ahead of the editable install's finder, and hide the package itself
    for folder in (HERE, HERE / "tests", HERE / "tests" / "course"):
        if str(folder) not in sys.path:
            sys.path.append(str(folder))


DRIVER = r"""
import json, sys
job = json.load(open(sys.argv[1]))
try:
    from barrier_course.grading.pool import GradingPool
except ImportError:              # a tree from before the warm interpreters
    GradingPool = None
try:
    from barrier_course.grading.autograde import score_answer
except ImportError:              # a tree from before the layout by role
    from barrier_course.autograde import score_answer
if GradingPool is None:
    scores = [score_answer(job["notebook"], s) for s in job["sources"]]
else:
    with GradingPool() as pool:
        scores = [pool.score(job["notebook"], s) for s in job["sources"]]
json.dump([[(c.grade_id, c.points) for c in s.cells] for s in scores], open(sys.argv[2], "w"))
"""


def answers_of(exercise: str, right: int, wrong: int) -> list:
    """(label, kernel source) of the solution, ``right`` right and ``wrong`` wrong answers."""
    _tests_on_path()
    from exercise_answers import answer_template, kernel_with, solution_notebook  # noqa: PLC0415

    path = solution_notebook(exercise)
    module = importlib.import_module(exercises()[exercise])
    if module.__name__ == "hostile_submissions":
        rights = {"right": module.RIGHT, "right_warns": module.RIGHT_WARNS}
        wrongs = {"no_barrier": module.NO_BARRIER, "wrong_neutral": module.WRONG_NEUTRAL}
    else:
        rights = dict(module.RIGHT)
        wrongs = {name: answer for name, (answer, _) in module.WRONG.items()}
    chosen = [("solution", answer_template(path))]
    chosen += [(f"right:{n}", kernel_with(path, rights[n])) for n in sorted(rights)[:right]]
    chosen += [(f"wrong:{n}", kernel_with(path, wrongs[n])) for n in sorted(wrongs)[:wrong]]
    return chosen


def grade_cpu(tree: Path, exercise: str, sources: list) -> tuple:
    """(CPU seconds of the whole grading run, [[(grade_id, points)] per answer])."""
    with tempfile.TemporaryDirectory() as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        notebook = tree / "solutions" / exercise / f"{exercise}.ipynb"
        job.write_text(json.dumps({"notebook": str(notebook), "sources": sources}))
        env = {**os.environ, "PYTHONPATH": str(tree), "BARRIER_COURSE_NO_GPU": "1"}
        proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(job), str(out)], cwd=tree,
                                env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"grading with {tree} failed ({proc.returncode})")
        return usage.ru_utime + usage.ru_stime, json.loads(out.read_text())


def _spread(seconds: list) -> str:
    """The median of the repeats and their range, s CPU per submission."""
    return f"{statistics.median(seconds):6.2f} [{min(seconds):.2f}, {max(seconds):.2f}]".ljust(21)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, type=Path, help="the tree to compare with")
    parser.add_argument("--right", type=int, default=2, help="right answers per exercise")
    parser.add_argument("--wrong", type=int, default=2, help="wrong answers per exercise")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", help="these exercises only")
    args = parser.parse_args(argv)
    trees = {"before": args.base.resolve(), "after": HERE}
    print(f"load at start: {os.getloadavg()}")
    print("exercise                     answers  before s/sub [range]    after s/sub [range]     "
          "ratio  same points")
    for exercise in args.only or exercises():
        chosen = answers_of(exercise, args.right, args.wrong)
        sources = [src for _, src in chosen]
        cpu = {"before": [], "after": []}
        points = {}
        for _ in range(args.repeat):
            for name, tree in trees.items():   # interleaved, tree by tree
                seconds, points[name] = grade_cpu(tree, exercise, sources)
                cpu[name].append(seconds / len(sources))
        before, after = statistics.median(cpu["before"]), statistics.median(cpu["after"])
        print(f"{exercise:28s} {len(sources):7d}  {_spread(cpu['before'])}  {_spread(cpu['after'])}  "
              f"{before / after:5.2f}  {points['before'] == points['after']}  load {os.getloadavg()[0]:.1f}",
              flush=True)
    print(f"load at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
