"""The class picture after grading: ``python3 tasks.py grade ASSIGNMENT --report``.

For each notebook of the assignment, from the scores :func:`barrier_course.grading.class_grading.
grade_class` computed (nothing is run again):

* the distribution of total scores (a table and a bar chart);
* which properties (grade cells) failed most;
* the most common faults, grouped by their kind and by the region of the instructor's
  kernel where the fault report points ("12 students: Deadlock at 'Fill the tile'"), each
  with one anonymised example answer (the student's lines that differ from the released
  exercise, and the report's first line).

Written next to the gradebook as ``class_report/<assignment>.html`` (JupyterLab opens it
in its HTML viewer: the chart is inline SVG, no script) and ``class_report/<assignment>.json``.

A fault's region comes from the fault report's first ``at line N`` (the student's source):
that line is matched to the instructor's kernel (difflib, line by line; a line of the
student's own answer maps to the answer region), and the region is named by the comment
that opens it in the instructor's kernel (its first sentence), e.g. "Fill the tile".
"""

from __future__ import annotations

import difflib
import html
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Fault", "class_picture", "write_report", "REPORT_FOLDER", "fault_of", "kernel_regions"]

#: the folder, next to gradebook.db, that holds the reports
REPORT_FOLDER = "class_report"

_TITLE = re.compile(r"^=+\s*simcore:\s*(?P<title>.*?)\s*\[(?P<kind>[a-z_]+)\]\s*$", re.M)
_AT_LINE = re.compile(r"\bat line (?P<line>\d+)\b")
_LINE_WORD = re.compile(r"\bline (?P<line>\d+)\b")
_NBGRADER_MARK = re.compile(r"###\s*(BEGIN|END)\s+(SOLUTION|HIDDEN TESTS)")
_TODO = "__simcore_todo"


@dataclass(frozen=True)
class Fault:
    """One kind of failure at one place: what the report groups students by."""

    kind: str      # "race", "deadlock", ..., or the error's name ("CompileError", "wrong result")
    title: str     # what the instructor reads: "Deadlock", "Data race on shared memory tile"
    region: str    # the instructor kernel's region: "Fill the tile", or "" when no line


@dataclass
class NotebookPicture:
    """The class picture of one notebook of the assignment."""

    notebook: str
    students: int = 0
    possible: float = 0.0
    totals: list = field(default_factory=list)           # one total per student
    failed_cells: Counter = field(default_factory=Counter)  # grade_id -> students failing it
    cell_points: dict = field(default_factory=dict)      # grade_id -> max points
    faults: Counter = field(default_factory=Counter)     # Fault -> students
    examples: dict = field(default_factory=dict)         # Fault -> example dict


# ---- the instructor's kernel: its regions -------------------------------------------------


def _comment_text(line: str) -> str | None:
    stripped = line.strip()
    if not stripped.startswith("//"):
        return None
    text = stripped.lstrip("/").strip()
    return None if not text or _NBGRADER_MARK.search(text) or text.startswith("YOUR ANSWER") else text


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.:;])\s|\.$|:$", text.strip(), maxsplit=1)[0].rstrip(".:;")
    return sentence if len(sentence) <= 48 else sentence[:45].rstrip() + "..."


def kernel_regions(source: str) -> list[str]:
    """For each line (1-based, index 0 unused) of the instructor's kernel, its region's name:
    the first sentence of the latest comment block above it that starts a paragraph."""
    names = [""]
    current = ""
    previous_blank = True
    in_block = False
    for line in source.splitlines():
        text = _comment_text(line)
        if text is not None:
            if not in_block and previous_blank:  # a comment paragraph opens a region
                current = _first_sentence(text)
            in_block = True
        else:
            in_block = False
        names.append(current)
        previous_blank = not line.strip() or (in_block and previous_blank)
    return names


def _line_map(student: str, instructor: str) -> dict:
    """student line (1-based) -> instructor line, by matching equal lines (stripped)."""
    a = [x.strip() for x in student.splitlines()]
    b = [x.strip() for x in instructor.splitlines()]
    mapping = {}
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(i1, i2):
            if tag == "equal":
                mapping[k + 1] = j1 + (k - i1) + 1
            else:  # the student's own lines: the region where the instructor's lines were
                mapping[k + 1] = min(j1 + 1, len(b)) if b else 0
    return mapping


def _answer_lines(student: str, released: str) -> list[str]:
    """The lines of the student's answer that the released exercise does not have."""
    a = student.splitlines()
    b = released.splitlines()
    out = []
    matcher = difflib.SequenceMatcher(a=[x.strip() for x in a], b=[x.strip() for x in b],
                                      autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):  # lines of a (the student's) that b does not have
            out += a[i1:i2]
    return out


def _released(instructor: str) -> str:
    """The instructor's source with its solution regions dropped (the exercise's lines)."""
    out, inside = [], False
    for line in instructor.splitlines():
        if re.search(r"###\s*BEGIN SOLUTION", line):
            inside = True
            continue
        if re.search(r"###\s*END SOLUTION", line):
            inside = False
            continue
        if not inside:
            out.append(line)
    return "\n".join(out)


# ---- one submission's faults --------------------------------------------------------------


def _clean_title(title: str) -> str:
    title = re.sub(r"\s*\([^)]*\)", "", title)         # "(read-after-write hazard)"
    title = re.sub(r"\[[^\]]*\]", "", title)            # "tile[32]" -> "tile"
    return re.split(r":\s", title, maxsplit=1)[0].strip()


def fault_of(cell, answer: str | None, instructor: str | None) -> tuple[Fault, int | None]:
    """The Fault a failed cell shows, and the student's line it names (or None)."""
    error = cell.error or ""
    m = _TITLE.search(error)
    if m:
        kind, title = m["kind"], _clean_title(m["title"])
        at = _AT_LINE.search(error[m.end():]) or _AT_LINE.search(error)
    else:
        first = next((x.strip() for x in error.splitlines() if x.strip()), "")
        if cell.status in ("not done", "timeout", "refused"):
            kind = title = cell.status
        elif cell.error_name and cell.error_name != "AssertionError":
            kind, title = cell.error_name, cell.error_name
        else:
            kind = "wrong result"
            title = _clean_title(first)[:60] or "wrong result"
        at = _LINE_WORD.search(error)
    line = int(at["line"]) if at else None
    region = ""
    if line and answer and instructor:
        mapped = _line_map(answer, instructor).get(line)
        names = kernel_regions(instructor)
        if mapped and mapped < len(names):
            region = names[mapped]
    return Fault(kind, title, region), line


def _anonymised(text: str, student: str) -> str:
    return re.sub(re.escape(student), "student", text, flags=re.I) if student else text


# ---- the whole class ----------------------------------------------------------------------


def _kernel_sources(instructor_nb: dict) -> dict:
    """grade_id of each answer cell -> the instructor's kernel source (the solution)."""
    from .autograde import trusted_program  # noqa: PLC0415

    program = trusted_program(instructor_nb)
    sources = {}
    for cell in instructor_nb.get("cells", []):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in program.answer_cells:
            text = "".join(cell.get("source", ""))
            m = re.search(r'r?"""(.*)"""', text, re.S)
            sources[program.answer_cells[gid]] = m.group(1) if m else text
    return sources


def class_picture(report: dict, instructors: dict) -> dict:
    """{notebook: NotebookPicture} from grade_class's report and the instructor notebooks."""
    from .autograde import AnswerError, extract_answers  # noqa: PLC0415

    pictures = {}
    for notebook, gids in report["grade_ids"].items():
        picture = pictures[notebook] = NotebookPicture(notebook)
        kernels = _kernel_sources(instructors[notebook])
        for sub in (s for s in report["submissions"] if s.notebook == notebook):
            score = sub.score
            picture.students += 1
            picture.possible = score.possible
            picture.totals.append(score.total)
            try:
                answers = extract_answers(json.loads(Path(sub.path).read_text(encoding="utf-8")),
                                          instructors[notebook])
            except (AnswerError, ValueError, OSError):
                answers = {}
            seen = set()
            for cell in score.cells:
                picture.cell_points[cell.grade_id] = cell.max_points
                if cell.status == "passed" or cell.points >= cell.max_points:
                    continue
                picture.failed_cells[cell.grade_id] += 1
                variable, answer = next(iter(answers.items()), (None, None))
                fault, line = fault_of(cell, answer, kernels.get(variable))
                if fault in seen:
                    continue
                seen.add(fault)
                picture.faults[fault] += 1
                if fault not in picture.examples:
                    released = _released(kernels.get(variable, ""))
                    lines = _answer_lines(answer, released) if answer else []
                    first = next((x for x in (cell.error or "").splitlines() if x.strip()), "")
                    where = _AT_LINE.search(cell.error or "")
                    if where:
                        tail = (cell.error or "")[where.start():].splitlines()[0]
                        first = f"{first.strip('= ')}\n{tail}"
                    picture.examples[fault] = {
                        "answer": _anonymised("\n".join(lines).strip(), sub.student),
                        "report": _anonymised(first.strip(), sub.student)[:400],
                        "line": line, "cell": cell.grade_id}
            for gid in gids:
                picture.cell_points.setdefault(gid, 0.0)
    return pictures


def _distribution(totals: list, possible: float) -> list:
    """[(score, students)] for every score from 0 to possible in steps of one point."""
    counts = Counter(round(t) for t in totals)
    top = int(round(possible)) if possible else (max(counts) if counts else 0)
    return [(s, counts.get(s, 0)) for s in range(0, top + 1)]


def _svg_bars(rows: list, title: str) -> str:
    """A bar chart as inline SVG: JupyterLab's HTML viewer shows it without any script."""
    width, height, pad = 520, 220, 36
    most = max([c for _, c in rows] + [1])
    bar = (width - 2 * pad) / max(len(rows), 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'role="img" aria-label="{html.escape(title)}">',
             f'<text x="{pad}" y="16" font-size="13">{html.escape(title)}</text>']
    for k, (score, count) in enumerate(rows):
        h = (height - 2 * pad) * count / most
        x = pad + k * bar
        y = height - pad - h
        parts.append(f'<rect x="{x + 2:.1f}" y="{y:.1f}" width="{bar - 4:.1f}" height="{h:.1f}" '
                     f'fill="#4c72b0"><title>{score} points: {count} student(s)</title></rect>')
        parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - pad + 14}" font-size="11" '
                     f'text-anchor="middle">{score}</text>')
        if count:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{y - 3:.1f}" font-size="11" '
                         f'text-anchor="middle">{count}</text>')
    parts.append(f'<text x="{width / 2}" y="{height - 4}" font-size="11" text-anchor="middle">'
                 'points</text></svg>')
    return "".join(parts)


def _fault_label(fault: Fault) -> str:
    return f"{fault.title} at '{fault.region}'" if fault.region else fault.title


def to_json(pictures: dict) -> dict:
    out = {}
    for name, p in pictures.items():
        out[name] = {
            "students": p.students, "possible": p.possible,
            "distribution": _distribution(p.totals, p.possible),
            "mean": sum(p.totals) / len(p.totals) if p.totals else None,
            "failed_properties": [{"property": g, "students": n, "points": p.cell_points.get(g)}
                                  for g, n in p.failed_cells.most_common()],
            "faults": [{"kind": f.kind, "title": f.title, "region": f.region, "students": n,
                        "label": _fault_label(f), "example": p.examples.get(f)}
                       for f, n in p.faults.most_common()],
        }
    return out


def to_html(assignment: str, data: dict) -> str:
    e = html.escape
    body = [f"<h1>Class report: {e(assignment)}</h1>"]
    for name, p in data.items():
        body.append(f"<h2>{e(name)}</h2>")
        mean = f"{p['mean']:.1f}" if p["mean"] is not None else "-"
        body.append(f"<p>{p['students']} student(s); mean {mean} of {p['possible']:g} points.</p>")
        body.append(_svg_bars(p["distribution"], f"{name}: students per total score"))
        body.append("<h3>Properties failed most</h3><table><tr><th>property</th>"
                    "<th>students failing</th><th>points</th></tr>")
        for row in p["failed_properties"]:
            body.append(f"<tr><td><code>{e(row['property'])}</code></td><td>{row['students']}"
                        f"</td><td>{row['points']:g}</td></tr>")
        if not p["failed_properties"]:
            body.append('<tr><td colspan="3">every property passed for every student</td></tr>')
        body.append("</table><h3>Most common faults</h3><table><tr><th>students</th>"
                    "<th>fault</th><th>example answer (anonymised)</th></tr>")
        for row in p["faults"]:
            ex = row["example"] or {}
            example = (f"<pre>{e(ex.get('answer') or '(no answer lines)')}</pre>"
                       f"<pre class='report'>{e(ex.get('report') or '')}</pre>")
            body.append(f"<tr><td>{row['students']}</td><td>{e(row['label'])}<br>"
                        f"<small>{e(row['kind'])}, first in <code>{e(ex.get('cell') or '')}"
                        f"</code></small></td><td>{example}</td></tr>")
        if not p["faults"]:
            body.append('<tr><td colspan="3">no faults</td></tr>')
        body.append("</table>")
    style = ("body{font-family:sans-serif;margin:1.5em;max-width:60em}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}"
             "pre{margin:0;font-size:90%;white-space:pre-wrap}pre.report{color:#a33}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Class report: "
            f"{e(assignment)}</title><style>{style}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")


def write_report(root, assignment: str, report: dict, sources: dict) -> list[Path]:
    """Write class_report/<assignment>.html and .json next to the gradebook; return them.
    `sources`: the assignment's instructor notebooks by name (class_grading collects them)."""
    root = Path(root).resolve()
    instructors = {name: json.loads(p.read_text(encoding="utf-8")) for name, p in sources.items()}
    data = to_json(class_picture(report, instructors))
    folder = root / REPORT_FOLDER
    folder.mkdir(exist_ok=True)
    page = folder / f"{assignment}.html"
    page.write_text(to_html(assignment, data), encoding="utf-8")
    raw = folder / f"{assignment}.json"
    raw.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    return [page, raw]


def summary_lines(data: dict, top: int = 5) -> list[str]:
    """The report's gist for the terminal: the most common faults per notebook."""
    lines = []
    for name, p in data.items():
        for row in p["faults"][:top]:
            lines.append(f"{name}: {row['students']} student(s): {row['label']}")
    return lines
