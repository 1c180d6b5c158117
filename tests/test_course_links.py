"""Every graded exercise is reachable: linked from the start page and from its lesson, and
every relative link in a lesson points at a file that exists."""

import json
import re

import pytest

from course_testing import ROOT

LINK = re.compile(r"\]\(([^)#\s]+\.ipynb)\)")
EXERCISES = sorted(p.name for p in (ROOT / "exercises").iterdir() if p.is_dir())
LESSONS = sorted((ROOT / "course").glob("*.ipynb"))


def _markdown(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.mark.parametrize("name", EXERCISES)
def test_exercise_linked_from_start_page_and_a_lesson(name):
    target = f"../exercises/{name}/{name}.ipynb"
    assert target in _markdown(ROOT / "course" / "00_start.ipynb"), f"00_start does not link {target}"
    linking = [p.name for p in LESSONS if p.name != "00_start.ipynb" and target in _markdown(p)]
    assert linking, f"no lesson links {target}"


@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_relative_notebook_links_resolve(path):
    missing = [link for link in LINK.findall(_markdown(path))
               if not link.startswith("http") and not (path.parent / link).resolve().exists()]
    assert not missing, f"{path.name} links to missing notebooks: {missing}"
