"""Reading an exercise notebook: its cells as typed steps, and the answer cells' strings.

One reader for every part of the course that looks at an exercise's cells: the isolated
grader (:mod:`barrier_course.grading.autograde`: the instructor notebook's trusted cells as
:class:`SetupStep`, :class:`AnswerStep` and :class:`GradeStep`), nbgrader's plugins, and the
student's summary cell (:func:`barrier_course.grading.checks.summary`). Standard library only, so
that anything may import it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Mapping

__all__ = [
    "STUB_MARKER",
    "AnswerError",
    "SetupStep",
    "AnswerStep",
    "GradeStep",
    "TrustedProgram",
    "trusted_program",
    "load_notebook",
    "nbgrader_meta",
    "cell_source",
    "code_cells",
    "string_assignment",
    "assigned_string_names",
]

#: The text nbgrader puts where a solution was (see ``nbgrader_config.py``). The stub line
#: ``__simcore_todo("...");`` is valid C *and* valid Python, so the released notebook still
#: parses; the grader refuses any source that still contains it.
STUB_MARKER = "__simcore_todo"


class AnswerError(ValueError):
    """The answer cell is not what the grader can read (the message says what to fix)."""




@dataclass(frozen=True)
class SetupStep:
    """A locked cell that is neither a grade nor an answer cell: run as it is."""

    source: str
    kind = "setup"

    def record(self) -> dict:
        return {"kind": self.kind, "source": self.source}


@dataclass(frozen=True)
class AnswerStep:
    """Where an answer cell was: the answer string is bound to ``name``."""

    name: str
    kind = "answer"

    def record(self) -> dict:
        return {"kind": self.kind, "name": self.name}


@dataclass(frozen=True)
class GradeStep:
    """A grade cell: its full source (hidden tests included) and its points."""

    grade_id: str
    source: str
    points: float
    kind = "grade"

    def record(self) -> dict:
        return {"kind": self.kind, "grade_id": self.grade_id, "source": self.source,
                "points": self.points}


@dataclass
class TrustedProgram:
    """What runs when an answer is graded: trusted cells in notebook order."""

    steps: list         # [SetupStep | AnswerStep | GradeStep]
    answer_cells: dict  # grade_id of each answer cell -> the variable it assigns

    @property
    def grade_cells(self) -> list:
        return [s for s in self.steps if isinstance(s, GradeStep)]

    def step_records(self) -> list:
        """The steps as JSON-ready dicts (what the grading interpreter reads)."""
        return [s.record() for s in self.steps]

    def digest(self) -> str:
        """A digest of every trusted cell, in order."""
        blob = json.dumps(self.step_records(), sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def answer_dict(self, source) -> dict:
        """``{variable: answer string}`` from one string (an exercise with one answer cell)
        or from such a dict (checked to name every answer variable)."""
        names = list(dict.fromkeys(self.answer_cells.values()))
        if isinstance(source, Mapping):
            missing = [n for n in names if n not in source]
            if missing:
                raise ValueError(f"no answer given for {missing}")
            return dict(source)
        if len(names) != 1:
            raise ValueError(f"the exercise has answer cells {names}: pass a dict")
        return {names[0]: source}


def nbgrader_meta(cell) -> dict:
    """The cell's nbgrader metadata ({} for a cell nbgrader does not know)."""
    return (cell.get("metadata") or {}).get("nbgrader") or {}


def cell_source(cell) -> str:
    """The cell's source as one string (a notebook may store it as a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def load_notebook(nb_or_path) -> dict:
    """A notebook's JSON, from a path or as given."""
    if isinstance(nb_or_path, (str, os.PathLike)):
        with open(nb_or_path, encoding="utf-8") as f:
            return json.load(f)
    return nb_or_path


def string_assignment(cell_source: str, where: str) -> tuple:
    """(name, value) of a cell that is one `name = "string literal"`; AnswerError otherwise."""
    fix = (f"The cell '{where}' must hold only your kernel source, as it was given: "
           "one assignment such as source = r\"\"\" ... \"\"\" (comments are fine). "
           "Edit the CUDA code inside the string and remove anything else from the cell.")
    try:
        tree = ast.parse(cell_source)
    except SyntaxError as exc:
        raise AnswerError(f"{fix}\nPython cannot read the cell: {exc.msg} (line {exc.lineno}).") from None
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.Assign):
        kinds = ", ".join(type(s).__name__ for s in body) or "nothing"
        raise AnswerError(f"{fix}\nThe cell holds: {kinds}.")
    node = body[0]
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        raise AnswerError(f"{fix}\nThe assignment must have one plain name on its left.")
    try:
        value = ast.literal_eval(node.value)
    except ValueError:
        raise AnswerError(f"{fix}\nThe right-hand side is not a string literal "
                          f"(it is {type(node.value).__name__}).") from None
    if not isinstance(value, str):
        raise AnswerError(f"{fix}\nThe value is a {type(value).__name__}, not a string.")
    return node.targets[0].id, value


def trusted_program(instructor_nb) -> TrustedProgram:
    """The trusted cells of an instructor (source) notebook, in order.

    Setup: locked code cells that are neither grade nor solution cells. Grade: code grade
    cells (their full source, hidden tests included). Answer: code solution cells; each must
    be one string assignment in the instructor notebook too (that is how the grader learns
    the variable name). Any other cell (try-it cells, markdown) is not part of grading.
    """
    steps, answers = [], {}
    for k, meta, source in code_cells(instructor_nb):
        gid = meta.get("grade_id") or f"cell{k}"
        if meta.get("solution") and not meta.get("grade"):
            name, _ = string_assignment(source, gid)
            answers[gid] = name
            steps.append(AnswerStep(name))
        elif meta.get("grade") and not meta.get("solution"):
            steps.append(GradeStep(gid, source, float(meta.get("points", 0))))
        elif meta.get("locked") and not meta.get("solution"):
            steps.append(SetupStep(source))
    if not answers:
        raise ValueError("the instructor notebook has no answer cell (an nbgrader solution cell)")
    return TrustedProgram(steps, answers)


def code_cells(nb) -> list:
    """``[(index, nbgrader metadata, source)]`` of the notebook's code cells, in order."""
    return [(k, nbgrader_meta(cell), cell_source(cell))
            for k, cell in enumerate(load_notebook(nb).get("cells", []))
            if cell.get("cell_type") == "code"]


def assigned_string_names(source: str) -> list:
    """The names a cell binds when it is nothing but assignments of string literals (the
    shape of an answer cell: ``source = r"..."`` with the kernel inside); [] for any other.
    Lenient, for a notebook as the student has it (:func:`string_assignment` is strict)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            return []
        names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names
