"""An instructor's measure of an exercise: which plausible wrong answers keep full marks.

    python3 tasks.py audit ASSIGNMENT [ASSIGNMENT ...] [--fast] [--jobs N] [--rules r1,r2]
    python -m barrier_course.grading.audit all --fast

makes the mutants of the solution (:mod:`barrier_course.grading.mutants`: a barrier deleted, moved or
put in a branch, a mask or a bound changed, a fence dropped, an atomic made plain, ...), grades
each one exactly as a submission is graded (the isolated scorer,
:func:`barrier_course.grading.pool.score_answers`: the instructor's trusted cells, hidden tests
included, each in a limited process forked from a warm interpreter), and reports

* per property (grade cell): how many mutants pass it, and which;
* in total: the mutants that **survive** (full marks: what the tests cannot see), each with its
  note when the exercise's authoring notes list it as equivalent (the table "Audit notes" in
  solutions/AUTHORING.md), and the ones that **crash** the grader (an error other than a failed
  check, or a grader fault) -- a bug of the grader, never the student's.

A survivor is either killed by a better hidden test or listed in those notes with the reason
it is right (or undetectable by the simulator). ``--fast`` stops each mutant at its first lost
cell (the verdict is the same, the per-property counts are then lower bounds); the test suite
runs it on every exercise (tests/barrier_course/grading/test_audit.py).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .pool import score_answers
from .mutants import RULES, mutants, solution_source

ROOT = Path(__file__).resolve().parent.parent.parent
NOTES = ROOT / "solutions" / "AUTHORING.md"
CHECK_FAILURES = ("AssertionError", "NotImplementedError")


@dataclass
class MutantResult:
    id: str
    rule: str
    description: str
    verdict: str                  # survived | killed | crashed | limit
    points: float
    possible: float
    cells: dict                   # grade_id -> points
    detail: str = ""              # crash or limit: what happened
    note: str | None = None       # survived: the authoring notes' reason, if listed
    seconds: float = 0.0          # time its grade cells ran


@dataclass
class AuditReport:
    assignment: str
    solution_ok: bool
    solution_detail: str
    max_points: dict              # grade_id -> points
    results: list = field(default_factory=list)
    stale_notes: dict = field(default_factory=dict)   # noted mutant id -> reason, that did not survive
    fast: bool = False
    seconds: float = 0.0

    def by(self, verdict):
        return [r for r in self.results if r.verdict == verdict]

    @property
    def unexplained(self):
        return [r for r in self.by("survived") if r.note is None]


def notebook(assignment: str, root: Path = ROOT) -> Path:
    return root / "solutions" / assignment / f"{assignment}.ipynb"


def assignments(root: Path = ROOT) -> list:
    return sorted(p.name for p in (root / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())


def equivalence_notes(path: Path = NOTES) -> dict:
    """{(assignment, mutant id): reason} from the "Audit notes" table of the authoring notes."""
    notes = {}
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    section = text.split("## Audit notes", 1)[1] if "## Audit notes" in text else ""
    for line in section.splitlines():
        m = re.match(r"\|\s*`?(ex\w+)`?\s*\|\s*`?([\w@.]+)`?\s*\|\s*(.+?)\s*\|\s*$", line)
        if m:
            notes[(m.group(1), m.group(2))] = m.group(3)
    return notes


def _classify(score) -> tuple:
    """(verdict, detail) of one graded mutant."""
    if score.fault:
        limit = score.timed_out or "limit" in score.fault
        return ("limit" if limit else "crashed"), score.fault
    odd = [c for c in score.cells if c.error_name and c.error_name not in CHECK_FAILURES
           and c.error != "This test did not run."]
    if odd:
        c = odd[0]
        return "crashed", f"{c.grade_id}: {c.error_name}: {(c.error or '')[:300]}"
    if score.total >= score.possible:
        return "survived", ""
    return "killed", ""


def _grade(nb: Path, sources: list, fast: bool, jobs: int) -> list:
    """Scores of the sources, in order, with `jobs` grading interpreters side by side."""
    jobs = max(1, min(jobs, len(sources)))
    chunks = [sources[k::jobs] for k in range(jobs)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        graded = list(pool.map(lambda chunk: score_answers(nb, chunk, until_first_failure=fast), chunks))
    out = [None] * len(sources)
    for k, chunk_scores in enumerate(graded):
        for j, score in enumerate(chunk_scores):
            out[k + j * jobs] = score
    return out


def audit(assignment: str, *, rules=RULES, fast: bool = False, jobs: int = 1, root: Path = ROOT,
          notes: dict | None = None, grade_solution: bool = True) -> AuditReport:
    """Grade the solution and every mutant of it; -> the report (nothing printed).
    grade_solution=False trusts the solution's full marks (the exercise's own tests check them)
    and saves one full grading."""
    started = time.monotonic()
    nb = notebook(assignment, root)
    source = solution_source(nb)
    found = mutants(source, rules)
    notes = equivalence_notes(root / "solutions" / "AUTHORING.md") if notes is None else notes
    scores = _grade(nb, [source] * grade_solution + [m.source for m in found], fast, jobs)
    solution = scores[0] if grade_solution else None
    report = AuditReport(assignment, solution is None or (solution.total >= solution.possible and not solution.fault),
                         "" if solution is None else
                         solution.fault or "; ".join(f"{c.grade_id}: {c.error}" for c in solution.cells if c.error),
                         {c.grade_id: c.max_points for c in scores[0].cells}, fast=fast)
    for m, score in zip(found, scores[int(grade_solution):]):
        verdict, detail = _classify(score)
        report.results.append(MutantResult(
            m.id, m.rule, m.description, verdict, score.total, score.possible,
            {c.grade_id: c.points for c in score.cells}, detail,
            notes.get((assignment, m.id)) if verdict == "survived" else None,
            round(sum(c.seconds for c in score.cells), 2)))
    survived = {r.id for r in report.by("survived")}
    report.stale_notes = {mid: why for (a, mid), why in notes.items() if a == assignment and mid not in survived
                          and set(rules) >= {mid.split("@")[0]}}
    report.seconds = round(time.monotonic() - started, 1)
    return report


def format_report(report: AuditReport) -> str:
    lines = [f"== {report.assignment}: {len(report.results)} mutants, {len(report.by('survived'))} survive "
             f"({len(report.unexplained)} unexplained), {len(report.by('killed'))} killed, "
             f"{len(report.by('crashed'))} crash the grader, {len(report.by('limit'))} hit a limit "
             f"[{report.seconds:g} s{', fast: per-property counts are lower bounds' if report.fast else ''}]"]
    if not report.solution_ok:
        lines.append(f"   THE SOLUTION ITSELF DOES NOT GET FULL MARKS: {report.solution_detail[:500]}")
    lines.append("   per property (mutants passing it / all):")
    for gid, pts in report.max_points.items():
        passing = [r.id for r in report.results if r.cells.get(gid, 0) >= pts]
        lines.append(f"     {gid:28s} {len(passing):3d}/{len(report.results)}  ({pts:g} points)")
    slowest = sorted(report.results, key=lambda r: -r.seconds)[:3]
    lines.append("   slowest to grade: " + ", ".join(f"{r.id} {r.seconds:g} s ({r.verdict})" for r in slowest))
    for r in report.by("survived"):
        why = f"equivalent: {r.note}" if r.note else "UNEXPLAINED: no test tells it from the solution"
        lines.append(f"   survives  {r.id:26s} {r.description}\n             {why}")
    for r in report.by("crashed") + report.by("limit"):
        lines.append(f"   {r.verdict:9s} {r.id:26s} {r.description}\n             {r.detail[:400]}")
    for mid, why in report.stale_notes.items():
        lines.append(f"   stale note {mid}: listed as equivalent but it does not survive ({why[:120]})")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tasks.py audit", description=__doc__.splitlines()[0])
    ap.add_argument("assignments", nargs="+", help="assignment names, or 'all'")
    ap.add_argument("--fast", action="store_true", help="stop each mutant at its first lost cell")
    ap.add_argument("--jobs", type=int, default=1, help="grading interpreters side by side")
    ap.add_argument("--rules", default=",".join(RULES), help="comma-separated rules (default: all)")
    args = ap.parse_args(argv)
    rules = tuple(r for r in args.rules.split(",") if r)
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        ap.error(f"unknown rules {unknown}; the rules are {', '.join(RULES)}")
    names = assignments() if args.assignments == ["all"] else args.assignments
    missing = [a for a in names if not notebook(a).exists()]
    if missing:
        ap.error(f"no such assignment {missing}; they are {', '.join(assignments())}")
    bad = 0
    for name in names:
        report = audit(name, rules=rules, fast=args.fast, jobs=args.jobs)
        print(format_report(report), flush=True)
        bad += len(report.unexplained) + len(report.by("crashed")) + (not report.solution_ok)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
