"""Grade hand-written answers of an exercise through the isolated scorer (not a test module).

An answer is the code a student writes in place of the solution region (the lines between
``// ### BEGIN SOLUTION`` and ``// ### END SOLUTION`` of the instructor notebook's answer
cell). :func:`kernel_with` puts it into the kernel; :func:`grade` scores the kernel with
``barrier_course.autograde.score_answer`` (the instructor notebook's trusted cells, hidden
tests included, in a fresh interpreter) and returns ``{grade_id: (points, message or None)}``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from barrier_course.autograde import score_answer

ROOT = Path(__file__).resolve().parent.parent
REGION = re.compile(r"^(?P<indent>[ \t]*)// ### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*// ### END SOLUTION[^\n]*\n",
                    re.S | re.M)


def solution_notebook(assignment: str) -> Path:
    return ROOT / "solutions" / assignment / f"{assignment}.ipynb"


def _cells(path: Path) -> list:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(c["cell_type"], c.get("metadata", {}).get("nbgrader", {}),
             "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
            for c in nb["cells"]]


def answer_template(path: Path) -> str:
    """The instructor's kernel source (the answer cell's string, solution region included)."""
    for kind, meta, src in _cells(path):
        if kind == "code" and meta.get("solution"):
            return ast.literal_eval(ast.parse(src).body[0].value)
    raise AssertionError(f"{path}: no answer cell")


def kernel_with(path: Path, answer: str) -> str:
    """The kernel with the solution region replaced by `answer` (indented like the region)."""
    template = answer_template(path)
    m = REGION.search(template)
    assert m, f"{path}: the answer cell has no solution region"
    body = "".join((m["indent"] + line if line.strip() else line) + "\n"
                   for line in answer.strip("\n").splitlines())
    return template[: m.start()] + body + template[m.end():]


def grade(path: Path, kernel_source: str) -> dict:
    """{grade_id: (points, failure message or None)} for one kernel source."""
    result = score_answer(path, kernel_source)
    assert result.fault is None or result.cells, result.fault
    return {c.grade_id: (float(c.points), c.error) for c in result.cells}


def max_points(path: Path) -> dict:
    return {meta["grade_id"]: float(meta["points"]) for kind, meta, _ in _cells(path)
            if kind == "code" and meta.get("grade")}


def find_nvcc() -> str | None:
    for cand in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def nvcc_errors(sources: dict) -> dict:
    """{name: compiler output} for every source that ``nvcc -ptx -arch=sm_90`` refuses."""
    nvcc = find_nvcc()
    assert nvcc, "nvcc not found"
    bad = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, code in sources.items():
            cu = Path(tmp) / f"{name}.cu"
            cu.write_text(code)
            p = subprocess.run([nvcc, "-ptx", "-arch=sm_90", str(cu), "-o", str(cu.with_suffix(".ptx"))],
                               capture_output=True, text=True, timeout=300)
            if p.returncode:
                bad[name] = (p.stdout + p.stderr).strip()
    return bad
