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


NUMBERED = [p for p in LESSONS if re.match(r"\d\d_", p.name) and p.name != "00_start.ipynb"]


@pytest.mark.parametrize("path", NUMBERED[:-1], ids=[p.name for p in NUMBERED[:-1]])
def test_each_lesson_links_the_next(path):
    nxt = NUMBERED[NUMBERED.index(path) + 1]
    assert f"Next: [lesson {nxt.name[:2]}]({nxt.name})" in _markdown(path), \
        f"{path.name} does not end with a link to {nxt.name}"


def test_the_start_page_has_no_column_that_says_the_same_in_every_row():
    rows = [line for line in _markdown(ROOT / "course" / "00_start.ipynb").splitlines()
            if line.startswith("| 0")]
    assert len(rows) >= 7
    columns = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    for k in range(min(len(c) for c in columns)):
        assert len({c[k] for c in columns}) > 1, f"column {k} says {columns[0][k]!r} in every row"


def test_the_repository_cites_only_its_own_docs():
    """shared/... is beside a developer's checkout, not in the repository a reader has."""
    texts = {p: _markdown(p) for p in [*LESSONS, *sorted((ROOT / "exercises").rglob("*.ipynb")),
                                         *sorted((ROOT / "solutions").rglob("*.ipynb"))]}
    texts.update({p: p.read_text(encoding="utf-8") for p in [ROOT / "README.md",
                                                            *sorted((ROOT / "docs").glob("*.md"))]})
    citing = [p.relative_to(ROOT).as_posix() for p, text in texts.items()
              if re.search(r"(^|[\s`(])(\.\./)?shared/(design|seeds)\b", text)]
    assert not citing, f"cite shared/ paths that are not in the repository: {citing}"


def test_lesson_01_says_where_its_strange_value_comes_from():
    import numpy as np

    text = _markdown(ROOT / "course" / "01_barrier_guarantees.ipynb")
    value = np.frombuffer(b"\xcd" * 4, np.float32)[0]
    assert f"{value:g}" in text and "0xCD" in text
