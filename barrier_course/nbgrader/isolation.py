"""nbgrader 0.9 on the isolated scorer: ``nbgrader autograde`` grades the kernel, not the notebook.

``nbgrader_config.py`` puts :class:`IsolatedExecute` where nbgrader's ``Execute`` was in
``Autograde.autograde_preprocessors``. Instead of running the submitted notebook in a
kernel (where the student's Python could rebind ``check_kernel``, patch numpy, install an AST
transformer or rewrite the installed package), it

1. reads the answer string(s) out of the answer cell(s) without running them
   (:func:`barrier_course.grading.autograde.extract_answers`);
2. runs the instructor notebook's trusted cells (from the source directory: setup and grade
   cells, hidden tests included) with those strings, in a fresh limited interpreter
   (:func:`barrier_course.grading.autograde.score_answer`);
3. writes what each grade cell printed, and its failure, back into that grade cell as
   outputs, so that nbgrader's own ``SaveAutoGrades`` scores them as usual (an ``error``
   output scores 0; a partial score is an ``execute_result``). Warnings are written as
   stdout: nbgrader scores any stderr output as 0, and a warning never costs a point.

No other cell is executed: try-it cells and cells the student inserted keep no outputs.

:class:`FeedbackCleanup` runs first in ``GenerateFeedback.preprocessors``: it removes the
hidden tests from the grade cells, replaces the instructor's paths, cuts oversized outputs
and wraps long report lines, so the feedback HTML shows the student's results only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Integer, List, Unicode

from ..grading.autograde import (AnswerError, AnswerScore, Limits, extract_answers, score_answer,
                        trusted_program)
from ..grading.exercise_notebook import nbgrader_meta

__all__ = ["IsolatedExecute", "FeedbackCleanup", "score_key", "SCORE_CACHE_ENV"]

#: A folder of precomputed scores (``tasks.py grade`` fills it in parallel, then runs
#: ``nbgrader autograde`` once with this variable set so that nothing is graded twice).
SCORE_CACHE_ENV = "BARRIER_COURSE_SCORE_CACHE"

_DEFAULTS = Limits()


def score_key(instructor_nb, answers: dict, limits: Limits) -> str:
    """A digest of everything a score depends on: trusted cells, answers, limits."""
    program = trusted_program(instructor_nb)
    blob = json.dumps({"steps": program.step_records(), "answers": answers, "limits": asdict(limits)},
                      sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def instructor_notebook(config, assignment: str, notebook: str) -> Path:
    """The source (instructor) notebook of an assignment, from nbgrader's course directory."""
    coursedir = CourseDirectory(config=config)
    folder = coursedir.format_path(coursedir.source_directory, ".", assignment)
    return Path(folder) / f"{notebook}.ipynb"


def _error_output(ename: str, message: str) -> NotebookNode:
    lines = message.split("\n")
    # the student's mistake first: the report itself, no grader traceback
    traceback = [f"\x1b[0;31m{ename}\x1b[0m: {lines[0]}", *lines[1:]]
    return from_dict({"output_type": "error", "ename": ename, "evalue": message,
                      "traceback": traceback})


def _stream(text: str) -> NotebookNode:
    return from_dict({"output_type": "stream", "name": "stdout", "text": text})


class IsolatedExecute(NbGraderPreprocessor):
    """Replaces nbgrader's ``Execute``: grade the answer strings in an isolated interpreter."""

    cpu_s = Integer(_DEFAULTS.cpu_s, help="CPU seconds per submission").tag(config=True)
    wall_s = Float(_DEFAULTS.wall_s, help="wall-clock seconds per submission").tag(config=True)
    memory_mb = Integer(_DEFAULTS.memory_mb, help="address space (MB) of the grading "
                        "interpreter").tag(config=True)
    output_bytes = Integer(_DEFAULTS.output_bytes, help="characters one test cell may "
                           "print").tag(config=True)
    output_lines = Integer(_DEFAULTS.output_lines, help="lines one test cell may "
                           "print").tag(config=True)
    source_bytes = Integer(_DEFAULTS.source_bytes, help="longest answer string").tag(config=True)
    macro_expansion_chars = Integer(_DEFAULTS.macro_expansion_chars, help="characters an "
                                    "answer's macros may expand to").tag(config=True)
    score_cache = Unicode("", help=f"folder of precomputed scores (default: ${SCORE_CACHE_ENV})"
                          ).tag(config=True)

    def limits(self) -> Limits:
        return Limits(cpu_s=self.cpu_s, wall_s=self.wall_s, memory_mb=self.memory_mb,
                      output_bytes=self.output_bytes, output_lines=self.output_lines,
                      source_bytes=self.source_bytes,
                      macro_expansion_chars=self.macro_expansion_chars)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        source_nb = instructor_notebook(self.config, info["assignment"], info["notebook"])
        if not source_nb.exists():
            raise FileNotFoundError(
                f"The instructor notebook {source_nb} is missing: the isolated grader runs "
                "the test cells from the source directory, not from the submission.")
        with open(source_nb, encoding="utf-8") as f:
            instructor = json.load(f)
        for cell in nb.cells:  # nothing the student ran (or faked) survives
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        try:
            answers = extract_answers(nb, instructor)
        except AnswerError as exc:
            self._refused(nb, instructor, str(exc))
            return nb, resources
        limits = self.limits()
        score = self._cached(instructor, answers, limits)
        how = "precomputed"
        if score is None:
            how = "graded now"
            score = score_answer(instructor, answers, limits=limits)
        self.log.info("isolated grade of %s/%s (%s): %g of %g%s", info.get("student"),
                      info["notebook"], how, score.total, score.possible,
                      f" ({score.fault})" if score.fault else "")
        self._write_back(nb, score)
        return nb, resources

    def _cached(self, instructor, answers, limits) -> AnswerScore | None:
        folder = self.score_cache or os.environ.get(SCORE_CACHE_ENV, "")
        if not folder:
            return None
        path = Path(folder) / f"{score_key(instructor, answers, limits)}.json"
        if not path.exists():
            return None
        return AnswerScore.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def _refused(self, nb, instructor, message: str) -> None:
        program = trusted_program(instructor)
        for cell in nb.cells:
            gid = nbgrader_meta(cell).get("grade_id")
            if cell.cell_type != "code":
                continue
            if gid in program.answer_cells or (nbgrader_meta(cell).get("grade")
                                               and not nbgrader_meta(cell).get("solution")):
                cell.outputs = [_error_output("AnswerError", message)]

    def _write_back(self, nb, score: AnswerScore) -> None:
        results = score.by_id()
        for cell in nb.cells:
            meta = nbgrader_meta(cell)
            if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
                continue
            got = results.get(meta.get("grade_id"))
            if got is None:
                continue
            outputs = []
            if got.output:
                outputs.append(_stream(got.output))
            if got.status != "passed" or got.error:
                outputs.append(_error_output(got.error_name or "GradingError",
                                             got.error or "This test did not pass."))
            elif got.points < got.max_points:
                outputs.append(from_dict({"output_type": "execute_result", "execution_count": None,
                                          "metadata": {}, "data": {"text/plain": repr(got.points)}}))
            cell.outputs = outputs


class FeedbackCleanup(NbGraderPreprocessor):
    """Feedback shows the student's results, never the hidden tests or the instructor's files."""

    begin_hidden = Unicode("BEGIN HIDDEN TESTS").tag(config=True)
    # nbconvert's HTML exporter configures display_data_priority for every preprocessor;
    # nbgrader's base class declares it without config=True (GetGrades re-declares it the
    # same way), so without this line generate_feedback warns "Config option
    # `display_data_priority` not recognized by `FeedbackCleanup`".
    display_data_priority = List(["text/html", "application/pdf", "text/latex", "image/svg+xml",
                                  "image/png", "image/jpeg", "text/plain"]).tag(config=True)
    end_hidden = Unicode("END HIDDEN TESTS").tag(config=True)
    wrap_width = Integer(100, help="longest output line in feedback").tag(config=True)
    max_output_chars = Integer(_DEFAULTS.output_bytes, help="longest output kept per "
                               "cell").tag(config=True)

    hidden_note = "# (hidden tests ran here when your work was graded; their results are below)"

    def preprocess(self, nb, resources):
        self._paths = self._private_paths()
        return super().preprocess(nb, resources)

    def _private_paths(self) -> list:
        paths = {CourseDirectory(config=self.config).root, sys.prefix, sys.exec_prefix,
                 os.path.expanduser("~"), str(Path(__file__).resolve().parent.parent.parent)}
        return sorted((p for p in paths if p and len(p) > 1), key=len, reverse=True)

    def _scrub(self, text: str) -> str:
        for p in self._paths:
            text = text.replace(p, "…")
        return text

    def _wrap(self, text: str) -> str:
        out = []
        for line in text.split("\n"):
            if len(line) <= self.wrap_width:
                out.append(line)
                continue
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(textwrap.wrap(line, width=self.wrap_width, subsequent_indent=indent + "    ",
                                     break_long_words=True, replace_whitespace=False) or [""])
        return "\n".join(out)

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_output_chars:
            return text
        return (text[: self.max_output_chars]
                + f"\n[... cut: {len(text)} characters, the feedback keeps {self.max_output_chars}]\n")

    def _strip_hidden(self, source: str) -> str:
        lines, inside, out = source.split("\n"), False, []
        for line in lines:
            if self.begin_hidden in line:
                inside = True
                out.append(self.hidden_note)
            elif self.end_hidden in line:
                inside = False
            elif not inside:
                out.append(line)
        return "\n".join(out)

    def preprocess_cell(self, cell, resources, index):
        cell.source = self._scrub(self._strip_hidden(cell.source))
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                output.text = self._wrap(self._scrub(self._cut(output.text)))
            elif output.output_type == "error":
                output.evalue = self._scrub(self._cut(output.evalue))
                tb = self._cut("\n".join(output.traceback))
                output.traceback = self._wrap(self._scrub(tb)).split("\n")
            elif "data" in output:
                for mime, value in list(output.data.items()):
                    if isinstance(value, str) and mime.startswith("text/"):
                        output.data[mime] = self._scrub(self._cut(value))
        return cell, resources
