"""Every CUDA kernel of the project compiles with the real compiler:
``nvcc -ptx -arch=sm_90`` (the H200's architecture).

Sources: every ``.cu`` of conformance/ (with the corpus entry's options), every ``.cu`` under
course/, solutions/, exercises/, and every Python string literal containing ``__global__``
in the code cells of their notebooks. Released exercise stubs (which contain
``__simcore_todo`` / "YOUR CODE HERE") are skipped: their solutions' version is compiled
from solutions/. ``-D`` options written as string literals in the same cell are passed on.

Without nvcc (checked: $NVCC, PATH, /usr/local/cuda/bin) every test skips and says so.
"""
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance import corpus  # noqa: E402

NOTEBOOK_DIRS = ("course", "solutions", "exercises")
STUB_MARKERS = ("__simcore_todo", "YOUR CODE HERE")
# (relative file, kernel) pairs that are meant not to compile (a lesson showing an error).
NOT_MEANT_TO_COMPILE: set = set()


def find_nvcc():
    for cand in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc",
                 "/usr/local/bin/nvcc"):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def _strip_magics(src: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in src.splitlines())


def _kernel_strings(cell_source: str):
    """(string, options) for each string literal with __global__ in one code cell, or the
    body of a ``%%cuda NAME`` cell (barrier_course.lessons.notebook.cuda_magic)."""
    if cell_source.lstrip().startswith("%%cuda"):
        body = cell_source.lstrip().split("\n", 1)[1] if "\n" in cell_source.strip() else ""
        return [(body, ())] if "__global__" in body else []
    try:
        tree = ast.parse(_strip_magics(cell_source))
    except SyntaxError:
        return []
    consts = [n.value for n in ast.walk(tree)
              if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    options = tuple(sorted({c for c in consts if c.startswith("-D")}))
    return [(c, options) for c in consts if "__global__" in c]


def _first_kernel_name(code: str) -> str:
    import re

    m = re.search(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s*)?"
                  r"(?:void\s+)?(\w+)\s*\(", code)
    return m.group(1) if m else "kernel"


def collect_sources():
    """[(test id, code, options)] for everything nvcc must accept."""
    items = []
    seen = set()
    for e in corpus.ENTRIES:
        key = (e.path.name, tuple(e.options))
        if key in seen:      # two entries may launch one source differently: compile it once
            continue
        seen.add(key)
        items.append((f"conformance/{e.path.name}", e.source, tuple(e.options)))
    for d in NOTEBOOK_DIRS:
        base = ROOT / d
        if not base.is_dir():
            continue
        for cu in sorted(base.rglob("*.cu")):
            if ".ipynb_checkpoints" in cu.parts:
                continue
            items.append((str(cu.relative_to(ROOT)), cu.read_text(), ()))
        for nb_path in sorted(base.rglob("*.ipynb")):
            if ".ipynb_checkpoints" in nb_path.parts:
                continue
            rel = str(nb_path.relative_to(ROOT))
            nb = json.loads(nb_path.read_text())
            for ci, cell in enumerate(nb.get("cells", [])):
                if cell.get("cell_type") != "code":
                    continue
                src = cell.get("source", "")
                src = "".join(src) if isinstance(src, list) else src
                for code, options in _kernel_strings(src):
                    if any(m in code for m in STUB_MARKERS):
                        continue   # released stub: its solution is compiled from solutions/
                    name = _first_kernel_name(code)
                    if (rel, name) in NOT_MEANT_TO_COMPILE:
                        continue
                    items.append((f"{rel}:cell{ci}:{name}", code, options))
    return items


SOURCES = collect_sources()
_results = {}


def _compile(item, nvcc, workdir):
    tid, code, options = item
    src = Path(workdir) / (tid.replace("/", "_").replace(":", "_") + ".cu")
    src.write_text(code)
    cmd = [nvcc, "-ptx", "-arch=sm_90", *options, str(src), "-o", str(src.with_suffix(".ptx"))]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        return tid, p.returncode, (p.stdout + p.stderr).strip(), " ".join(cmd)
    except subprocess.TimeoutExpired:
        return tid, -1, "nvcc timed out after 300 s", " ".join(cmd)


@pytest.fixture(scope="module")
def compiled():
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found (set $NVCC or put the CUDA toolkit's bin/ on PATH); "
                    "the PTX compile check needs the CUDA toolkit")
    with tempfile.TemporaryDirectory() as workdir:
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            for tid, rc, log, cmd in pool.map(lambda it: _compile(it, nvcc, workdir), SOURCES):
                _results[tid] = (rc, log, cmd)
    return _results


def test_sources_found():
    ids = [s[0] for s in SOURCES]
    assert sum(i.startswith("conformance/") for i in ids) >= 45
    assert len(ids) == len(set(ids)), "two sources got the same test id"


@pytest.mark.parametrize("tid", [s[0] for s in SOURCES])
def test_compiles_with_nvcc(compiled, tid):
    rc, log, cmd = compiled[tid]
    assert rc == 0, f"{cmd}\n{log}"
