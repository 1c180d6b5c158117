"""Autograde without the false "checksum has changed" alarm on cells with hidden tests.

nbgrader records each locked cell in the gradebook *before* it removes the hidden tests
(``generate_assignment`` runs SaveCells, then ClearHiddenTests), so a test cell that the
student never touched differs from its gradebook copy by exactly the hidden tests. During
``nbgrader autograde``, OverwriteCells then logs, for every such cell of every submission::

    Attribute 'checksum' for cell test_block_sizes has changed! (should be: ..., got: ...)

and puts the gradebook source back: the right result, with a warning that reads like
tampering. :class:`RestoreHiddenTests` runs just before OverwriteCells (in
``Autograde.sanitize_preprocessors``, see ``nbgrader_config.py``) and puts the hidden tests
back into each locked cell whose source is the released one, unchanged. OverwriteCells then
finds the checksums equal and stays quiet; a locked cell the student did change still gets
its warning (and is still replaced by the instructor's version), so the warning keeps its
meaning: someone edited a cell they were not meant to.
"""

from __future__ import annotations

from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor

__all__ = ["RestoreHiddenTests", "released_source"]


def released_source(instructor_source: str, cell_type: str, hidden_tests: ClearHiddenTests) -> str:
    """What the release made of a locked cell: its source with the hidden tests removed."""
    cell = NotebookNode(cell_type=cell_type, source=instructor_source, metadata={})
    hidden_tests._remove_hidden_test_region(cell)
    return cell.source


class RestoreHiddenTests(NbGraderPreprocessor):
    """Give unchanged locked cells their hidden tests back before OverwriteCells checks them."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        # the same delimiters (and their configuration) as the release step used
        hidden_tests = ClearHiddenTests(parent=self)
        with Gradebook(info["db_url"]) as gradebook:
            for cell in nb.cells:
                grade_id = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
                if not grade_id:
                    continue
                try:
                    recorded = gradebook.find_source_cell(grade_id, info["notebook"],
                                                          info["assignment"])
                except MissingEntry:
                    continue  # OverwriteCells reports it
                if not recorded.locked or recorded.source == cell.source:
                    continue
                if cell.source == released_source(recorded.source, recorded.cell_type,
                                                  hidden_tests):
                    cell.source = recorded.source
        return nb, resources
