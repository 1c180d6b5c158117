"""The course's JupyterLab extension (labextension/: CUDA in cells highlighted as C++) is
committed prebuilt; these check that what is committed is what gets installed and what the
source says. That it highlights is tests/deploy/test_browser.py's
``test_cuda_in_cells_is_highlighted_as_cpp``."""

from __future__ import annotations

import json
import re

from course_testing import ROOT

NAME = "gpu-barriers-course-cuda-highlight"
SOURCE = ROOT / "labextension" / "src"
PREBUILT = ROOT / "labextension" / "prebuilt" / NAME


def _data_files() -> dict:
    try:
        import tomllib
    except ImportError:                           # Python 3.10: setuptools reads it
        from setuptools.config.pyprojecttoml import read_configuration
        return read_configuration(ROOT / "pyproject.toml")["tool"]["setuptools"]["data-files"]
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["data-files"]


def test_prebuilt_extension_is_complete():
    meta = json.loads((PREBUILT / "package.json").read_text())
    assert meta["name"] == NAME
    entry = PREBUILT / meta["jupyterlab"]["_build"]["load"]
    assert entry.is_file(), f"the prebuilt extension's entry point {entry} is missing"


def test_wheel_installs_every_prebuilt_file():
    """pyproject's data-files put every file of the prebuilt extension into
    share/jupyter/labextensions/<name>/ (where JupyterLab looks), at its relative path."""
    installed = {}
    for target, patterns in _data_files().items():
        for pattern in patterns:
            for path in ROOT.glob(pattern):
                installed[path.resolve()] = f"{target}/{path.name}"
    for path in PREBUILT.rglob("*"):
        if path.is_file():
            want = f"share/jupyter/labextensions/{NAME}/{path.relative_to(PREBUILT).as_posix()}"
            assert installed.get(path.resolve()) == want, \
                f"{path.relative_to(ROOT)} is installed as {installed.get(path.resolve())}"


def test_prebuilt_bundle_follows_the_source():
    """Which text counts as CUDA is decided by the regular expressions of cudaNest.js; the
    committed bundle must contain them as they are now (else: cd labextension && npm ci &&
    npm run build, and commit prebuilt/)."""
    bundle = "".join(p.read_text() for p in (PREBUILT / "static").glob("*.js"))
    rules = re.findall(r"^const [A-Z_]+ = (/.+/[a-z]*);$", (SOURCE / "cudaNest.js").read_text(),
                       re.MULTILINE)
    assert len(rules) >= 3, rules
    stale = [rule for rule in rules if rule not in bundle]
    assert not stale, f"labextension/prebuilt is older than labextension/src: {stale} not in it"
