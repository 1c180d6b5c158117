"""The committed student release (exercises/) is what nbgrader makes from solutions/ now."""

import nbformat
import pytest

from course_testing import ROOT, copy_course, run_tool

ASSIGNMENTS = sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())


def _grading_view(nb):
    """What matters for grading and for the student: no volatile ids, no outputs."""
    cells = []
    for cell in nb.cells:
        cells.append({
            "cell_type": cell.cell_type,
            "source": cell.source,
            "nbgrader": cell.get("metadata", {}).get("nbgrader"),
        })
    return {"kernelspec": nb.metadata.get("kernelspec"), "cells": cells}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_matches_solutions(tmp_path, assignment):
    course = copy_course(tmp_path / "course")
    run_tool(["nbgrader", "generate_assignment", assignment, "--force"], cwd=course)
    fresh_dir = course / "exercises" / assignment
    committed_dir = ROOT / "exercises" / assignment
    fresh = sorted(p.relative_to(fresh_dir).as_posix() for p in fresh_dir.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(committed_dir).as_posix()
                       for p in committed_dir.rglob("*") if p.is_file()) if committed_dir.is_dir() else []
    hint = "regenerate it with `python3 tasks.py release` and commit exercises/"
    assert fresh == committed, f"files differ: generated {fresh}, committed {committed}; {hint}"
    for name in fresh:
        if not name.endswith(".ipynb"):
            assert (fresh_dir / name).read_bytes() == (committed_dir / name).read_bytes(), name
            continue
        a = _grading_view(nbformat.read(fresh_dir / name, as_version=4))
        b = _grading_view(nbformat.read(committed_dir / name, as_version=4))
        assert a["kernelspec"] == b["kernelspec"], f"{name}: kernelspec differs; {hint}"
        assert len(a["cells"]) == len(b["cells"]), f"{name}: number of cells differs; {hint}"
        for k, (x, y) in enumerate(zip(a["cells"], b["cells"])):
            assert x == y, f"{name}: cell {k} differs from a fresh release; {hint}"
