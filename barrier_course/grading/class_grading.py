"""Grade a whole class: ``python3 tasks.py grade ASSIGNMENT [--jobs N]``.

0. Before anything is graded, the gradebook must know the assignment and its notebooks
   (``nbgrader generate_assignment``, run by ``python3 tasks.py release ASSIGNMENT``); else it
   stops at once, before any answer is scored, and says what to run (:func:`check_gradebook`).
1. Every submitted notebook (``submitted/<student>/<assignment>/<notebook>.ipynb``) has its
   answer string(s) read out without running anything; identical answers are graded once.
2. The answers are graded in parallel, ``--jobs`` at a time, each in its own limited process
   (:class:`barrier_course.grading.pool.GradingPool`: forked from a warm interpreter that paid
   the imports and the exercise's setup once, the same scores as
   :func:`barrier_course.grading.autograde.score_answer`): a hung or hostile submission costs at most
   its limits and never stops the rest. A plain-text progress bar counts them.
3. ``nbgrader autograde ASSIGNMENT --force`` then runs once with the scores precomputed
   (``BARRIER_COURSE_SCORE_CACHE``), so the autograded notebooks, ``gradebook.db``,
   formgrader and ``nbgrader export`` see the grades exactly as after a plain autograde.
4. A summary table: points per grade cell (property) per student, faults and timeouts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .autograde import (AnswerError, AnswerScore, Limits, extract_answers, refused_score,
                        trusted_program)
from .pool import GradingPool

__all__ = ["grade_class", "check_gradebook", "NotReadyToGrade", "main", "Submission"]


@dataclass
class Submission:
    student: str
    notebook: str          # notebook name without .ipynb
    path: Path
    key: str | None = None         # score cache key (None: refused before running)
    score: AnswerScore | None = None


def _load_config(root: Path):
    from traitlets.config.loader import PyFileConfigLoader  # noqa: PLC0415

    return PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()


def configured_limits(root, **overrides) -> Limits:
    """The limits of ``c.IsolatedExecute`` in the course's nbgrader_config.py, then overrides."""
    from ..nbgrader.isolation import IsolatedExecute  # noqa: PLC0415

    limits = IsolatedExecute(config=_load_config(Path(root))).limits()
    return replace(limits, **{k: v for k, v in overrides.items() if v is not None})


def _course_directory(root: Path):
    """nbgrader's CourseDirectory as the course's nbgrader_config.py sets it up."""
    from nbgrader.coursedir import CourseDirectory  # noqa: PLC0415

    coursedir = CourseDirectory(config=_load_config(root))
    coursedir.root = str(root)
    return coursedir


class Progress:
    """``[#######.............]  7/30  ok 5  faults 1  timeouts 1  12 s`` on stderr."""

    def __init__(self, total: int, stream=None, width: int = 30):
        self.total, self.width, self.done = total, width, 0
        self.counts = {"ok": 0, "faults": 0, "timeouts": 0}
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self._last_line = -1

    def line(self) -> str:
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        c = self.counts
        return (f"[{bar}] {self.done:>3}/{self.total}  ok {c['ok']}  faults {c['faults']}  "
                f"timeouts {c['timeouts']}  {time.monotonic() - self.start:.0f} s")

    def update(self, score: AnswerScore) -> None:
        with self.lock:
            self.done += 1
            if score.timed_out or any(c.status == "timeout" for c in score.cells):
                self.counts["timeouts"] += 1
            elif score.fault:
                self.counts["faults"] += 1
            else:
                self.counts["ok"] += 1
            if self.tty:
                self.stream.write("\r" + self.line())
                if self.done == self.total:
                    self.stream.write("\n")
            else:  # a log file: one line per tenth of the class, and the last
                tenth = 10 * self.done // max(self.total, 1)
                if tenth != self._last_line or self.done == self.total:
                    self._last_line = tenth
                    self.stream.write(self.line() + "\n")
            self.stream.flush()


def _collect(coursedir, assignment: str) -> tuple:
    source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    instructors = {p.stem: p for p in sorted(source.glob("*.ipynb"))}
    if not instructors:
        raise SystemExit(f"No instructor notebooks in {source}: is '{assignment}' an assignment "
                         "of solutions/?")
    submitted_root = Path(coursedir.root) / coursedir.submitted_directory
    subs = []
    if submitted_root.is_dir():
        for student_dir in sorted(p for p in submitted_root.iterdir() if p.is_dir()):
            for name, _ in instructors.items():
                path = student_dir / assignment / f"{name}.ipynb"
                if path.exists():
                    subs.append(Submission(student_dir.name, name, path))
    return instructors, subs


class NotReadyToGrade(SystemExit):
    """What the gradebook step will need is missing: said before anything is graded."""


def check_gradebook(coursedir, assignment: str, notebooks) -> None:
    """Fail at once, naming what to run, when ``nbgrader autograde`` could not record the
    grades: the assignment and each of its notebooks must be in the gradebook, which
    ``nbgrader generate_assignment`` (``python3 tasks.py release ASSIGNMENT``) writes."""
    from nbgrader.api import Gradebook, MissingEntry  # noqa: PLC0415

    # (not a bare 'nbgrader generate_assignment': with the release folder committed it skips the
    # assignment and records nothing; tasks.py release regenerates it under the release guard)
    fix = (f"Run 'python3 tasks.py release {assignment}' first: it records the assignment in "
           "the gradebook; then grade again.")
    db_url = coursedir.db_url
    path = db_url[len("sqlite:///"):] if db_url.startswith("sqlite:///") else None
    if path is not None and not Path(path).is_file():
        raise NotReadyToGrade(f"Nothing was graded: there is no gradebook ({path}) yet. {fix}")
    with Gradebook(db_url) as gradebook:
        try:
            recorded = gradebook.find_assignment(assignment)
        except MissingEntry:
            raise NotReadyToGrade(f"Nothing was graded: the gradebook ({db_url}) has no "
                                  f"assignment '{assignment}'. {fix}") from None
        missing = sorted(set(notebooks) - {nb.name for nb in recorded.notebooks})
    if missing:
        raise NotReadyToGrade(f"Nothing was graded: the gradebook's '{assignment}' has no "
                              f"notebook {', '.join(missing)} (the source changed since it was "
                              f"generated). {fix}")


def grade_class(root, assignment: str, *, jobs: int = 1, limits: Limits | None = None,
                progress_stream=None, run_nbgrader: bool = True, students=None,
                scores_dir=None) -> dict:
    """Grade every submission of ``assignment`` under the course ``root``; return a report.

    The report: ``{"submissions": [Submission], "grade_ids": {...}, "seconds": float,
    "nbgrader_log": str}``. With ``run_nbgrader`` the gradebook and autograded notebooks are
    written by ``nbgrader autograde`` from the precomputed scores.

    ``students``: grade only these (one shard of the class, barrier_course/grading/class_shards.py).
    ``scores_dir``: a folder of scores shared by the shards (``<key>.json``): a score found
    there is not computed again, a score computed here is written there.
    """
    from ..nbgrader.isolation import SCORE_CACHE_ENV, score_key  # noqa: PLC0415

    root = Path(root).resolve()
    coursedir = _course_directory(root)
    limits = limits or configured_limits(root)
    instructors, subs = _collect(coursedir, assignment)
    if run_nbgrader and subs:
        check_gradebook(coursedir, assignment, instructors)
    if students is not None:
        subs = [s for s in subs if s.student in set(students)]
    shared = Path(scores_dir) if scores_dir else None
    parsed = {name: json.loads(p.read_text(encoding="utf-8")) for name, p in instructors.items()}
    start = time.monotonic()

    with tempfile.TemporaryDirectory(prefix="barrier-scores-") as cache:
        todo = {}  # key -> (instructor notebook, answers)
        for sub in subs:
            instructor = parsed[sub.notebook]
            try:
                nb = json.loads(sub.path.read_text(encoding="utf-8"))
                answers = extract_answers(nb, instructor)
            except (AnswerError, ValueError) as exc:
                sub.score = refused_score(trusted_program(instructor), "refused", str(exc), "AnswerError")
                continue
            sub.key = score_key(instructor, answers, limits)
            if shared is not None and (shared / f"{sub.key}.json").is_file():
                sub.score = AnswerScore.from_dict(json.loads((shared / f"{sub.key}.json").read_text()))
                (Path(cache) / f"{sub.key}.json").write_text(json.dumps(sub.score.to_dict()))
                continue
            todo.setdefault(sub.key, (instructor, answers))

        progress = Progress(len(subs), progress_stream)
        for sub in subs:
            if sub.score is not None:
                progress.update(sub.score)
        scores = {}
        with GradingPool(limits) as grader, ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
            # each task waits on its own isolated interpreter: threads are enough here
            futures = {pool.submit(grader.score, inst, ans): key
                       for key, (inst, ans) in todo.items()}
            for fut in as_completed(futures):
                key = futures[fut]
                scores[key] = fut.result()
                (Path(cache) / f"{key}.json").write_text(json.dumps(scores[key].to_dict()))
                if shared is not None:  # written whole, then renamed: a gatherer never reads half
                    part = shared / f".{key}.{os.getpid()}.part"
                    part.write_text(json.dumps(scores[key].to_dict()))
                    part.replace(shared / f"{key}.json")
                for sub in subs:
                    if sub.key == key:
                        sub.score = scores[key]
                        progress.update(sub.score)
        graded_s = time.monotonic() - start

        log = ""
        if run_nbgrader and subs:
            env = dict(os.environ)
            env[SCORE_CACHE_ENV] = cache
            # the same limits, so that the scores' keys match and nothing is graded twice
            flags = [f"--IsolatedExecute.{k}={v}" for k, v in asdict(limits).items()
                     if k != "file_bytes"]
            proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment,
                                   "--force", *flags], cwd=root, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            log = proc.stdout
            if proc.returncode != 0:
                sys.stderr.write(log[-4000:])
                raise SystemExit(f"nbgrader autograde failed ({proc.returncode}); see above. "
                                 f"Was the assignment released (python3 tasks.py release {assignment})?")

    grade_ids = {name: [g.grade_id for g in trusted_program(nb).grade_cells] for name, nb in parsed.items()}
    return {"submissions": subs, "grade_ids": grade_ids, "seconds": time.monotonic() - start,
            "grading_seconds": graded_s, "nbgrader_log": log,
            "precomputed": log.count("(precomputed)"), "graded_again": log.count("(graded now)")}


def _notes(score: AnswerScore) -> str:
    if score.timed_out or any(c.status == "timeout" for c in score.cells):
        return "timeout: " + (score.fault or "a limit was hit").split(":")[0]
    if any(c.status == "refused" for c in score.cells):
        first = next(c for c in score.cells if c.status == "refused")
        return "refused: " + (first.error or "").split("\n")[-1][:60]
    if all(c.status == "not done" for c in score.cells):
        return "not done"
    if score.fault:
        return "fault: " + score.fault[:60]
    return ""


def format_table(report: dict) -> str:
    """The summary table: one row per submission, one column per grade cell."""
    lines = []
    for notebook, gids in report["grade_ids"].items():
        subs = [s for s in report["submissions"] if s.notebook == notebook]
        if not subs:
            continue
        cols = [gid for gid in gids]
        sw = max(7, *(len(s.student) for s in subs))
        widths = [max(len(g), 7) for g in cols]
        head = "student".ljust(sw) + "  " + "  ".join(g.ljust(w) for g, w in zip(cols, widths))
        lines.append(f"{notebook}:")
        lines.append(head + "  total      notes")
        sums = [0.0] * len(cols)
        for s in subs:
            by = s.score.by_id()
            cells = []
            for k, (g, w) in enumerate(zip(cols, widths)):
                c = by.get(g)
                sums[k] += c.points if c else 0
                cells.append((f"{c.points:g}/{c.max_points:g}" if c else "-").ljust(w))
            total = f"{s.score.total:g}/{s.score.possible:g}".ljust(9)
            lines.append(s.student.ljust(sw) + "  " + "  ".join(cells) + f"  {total}  {_notes(s.score)}")
        avg = "  ".join(f"{v / len(subs):.1f}".ljust(w) for v, w in zip(sums, widths))
        lines.append("average".ljust(sw) + "  " + avg)
        n_timeout = sum(1 for s in subs if "timeout" in _notes(s.score))
        n_fault = sum(1 for s in subs if _notes(s.score).startswith(("fault", "refused")))
        lines.append(f"{len(subs)} submission(s); faults {n_fault}, timeouts {n_timeout}")
    return "\n".join(lines)


def main(argv=None) -> int:
    defaults = Limits()
    parser = argparse.ArgumentParser(prog="tasks.py grade", description=__doc__.split("\n")[0])
    parser.add_argument("assignment")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                        help="submissions graded at once (default: the number of CPUs)")
    parser.add_argument("--root", default=".", help="the course folder (nbgrader_config.py)")
    parser.add_argument("--cpu-s", type=int, default=None,
                        help=f"CPU seconds per submission (default {defaults.cpu_s})")
    parser.add_argument("--wall-s", type=float, default=None,
                        help=f"wall-clock seconds per submission (default {defaults.wall_s:g})")
    parser.add_argument("--memory-mb", type=int, default=None,
                        help=f"memory per submission in MB (default {defaults.memory_mb})")
    parser.add_argument("--json", help="also write the scores to this JSON file")
    parser.add_argument("--report", action="store_true",
                        help="also write the class picture next to the gradebook "
                             "(class_report/ASSIGNMENT.html; barrier_course/grading/class_report.py)")
    parser.add_argument("--shard", metavar="I/N",
                        help="grade only shard I of N (0-based) into --scores and leave the "
                             "gradebook alone (one pod of a Kubernetes Indexed Job)")
    parser.add_argument("--scores", metavar="DIR",
                        help="scores shared by the shards: read (not graded again) and written")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    limits = configured_limits(root, cpu_s=args.cpu_s, wall_s=args.wall_s,
                               memory_mb=args.memory_mb)
    if args.shard:
        from .class_shards import parse_shard, shard_students  # noqa: PLC0415

        index, count = parse_shard(args.shard)
        if not args.scores:
            parser.error("--shard needs --scores DIR (where the gather step finds the scores)")
    if args.scores:
        Path(args.scores).mkdir(parents=True, exist_ok=True)
    if args.shard:
        students = shard_students(root / _course_directory(root).submitted_directory, index, count)
        report = grade_class(root, args.assignment, jobs=args.jobs, limits=limits,
                             students=students, scores_dir=args.scores, run_nbgrader=False)
        print(f"shard {index}/{count}: {len(report['submissions'])} submission(s) of "
              f"{len(students)} student(s) graded into {args.scores} in "
              f"{report['grading_seconds']:.1f} s")
        return 0
    report = grade_class(args.root, args.assignment, jobs=args.jobs, limits=limits,
                         scores_dir=args.scores)
    if not report["submissions"]:
        print(f"No submissions of {args.assignment} in submitted/.")
        return 1
    print(format_table(report))
    print(f"gradebook updated through nbgrader autograde: {report['precomputed']} score(s) "
          f"precomputed, {report['graded_again']} graded again")
    print(f"graded in {report['grading_seconds']:.1f} s with {args.jobs} job(s); "
          f"{report['seconds']:.1f} s with the gradebook update")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {f"{s.student}/{s.notebook}": s.score.to_dict() for s in report["submissions"]},
            indent=1))
    if args.report:
        from .class_report import summary_lines, write_report  # noqa: PLC0415

        sources, _ = _collect(_course_directory(Path(args.root).resolve()), args.assignment)
        page, raw = write_report(args.root, args.assignment, report, sources)
        print("\n".join(summary_lines(json.loads(raw.read_text()))))
        print(f"class report: {page} (open it in JupyterLab)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
