"""nbgrader's JupyterLab and server extensions are installed and enabled in this environment."""

import re

from course_testing import ROOT, run_tool, strip_ansi


def _enabled_lines(text):
    return [line.strip() for line in strip_ansi(text).splitlines() if "enabled" in line]


def test_nbgrader_labextension_enabled():
    out = run_tool(["jupyter", "labextension", "list"], cwd=ROOT).stdout
    lines = [line for line in _enabled_lines(out) if "@jupyter/nbgrader" in line]
    assert lines, f"@jupyter/nbgrader is not an enabled lab extension:\n{strip_ansi(out)}"
    assert all("OK" in line for line in lines), strip_ansi(out)


def test_nbgrader_server_extensions_enabled():
    out = run_tool(["jupyter", "server", "extension", "list"], cwd=ROOT).stdout
    enabled = " ".join(_enabled_lines(out))
    for ext in ("nbgrader.server_extensions.formgrader",
                "nbgrader.server_extensions.assignment_list",
                "nbgrader.server_extensions.validate_assignment"):
        assert ext in enabled, f"{ext} is not enabled:\n{strip_ansi(out)}"
    text = strip_ansi(out)
    for ext in ("formgrader", "assignment_list"):
        full = re.escape(f"nbgrader.server_extensions.{ext}")
        assert re.search(full + r"\s+(\S+\s+)?OK", text), f"{ext} did not validate:\n{text}"
