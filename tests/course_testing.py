"""Shared helpers for the packaging, notebook and nbgrader tests (not a test module)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the environment pytest runs in (normally .venv/bin)
ASSIGNMENT = "ex01_tail_handling"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
NOT_DONE = "Exercise not done yet"


def tool_env(extra_path: Path | None = None) -> dict:
    """os.environ with this environment's bin first on PATH (nbgrader calls `alembic`)."""
    env = dict(os.environ)
    first = [str(extra_path)] if extra_path else []
    env["PATH"] = os.pathsep.join(first + [str(BIN), env.get("PATH", "")])
    return env


def tool(name: str) -> str:
    exe = BIN / name
    return str(exe) if exe.exists() else (shutil.which(name) or name)


def run_tool(args, cwd, timeout=1800, check=True) -> subprocess.CompletedProcess:
    """Run a console script of this environment; output captured (stderr merged)."""
    proc = subprocess.run([tool(args[0]), *map(str, args[1:])], cwd=cwd, env=tool_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{proc.stdout[-6000:]}")
    return proc


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def notebooks(*folders: str) -> list[Path]:
    found = []
    for folder in folders:
        base = ROOT / folder
        if base.is_dir():
            found += [p for p in sorted(base.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
    return found


def copy_course(dest: Path, parts=("nbgrader_config.py", "solutions")) -> Path:
    """Copy the instructor's files into dest (nbgrader's root follows nbgrader_config.py)."""
    dest.mkdir(parents=True, exist_ok=True)
    for part in parts:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        else:
            shutil.copy2(src, dest / part)
    return dest


def execute(path: Path, allow_errors: bool, timeout: int = 300):
    """Execute a notebook in a fresh kernel, in its own folder; return the executed notebook."""
    import nbformat
    from nbclient import NotebookClient

    os.environ["PATH"] = tool_env()["PATH"]
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def error_outputs(nb):
    """[(cell index, cell, error output)] for every error output in an executed notebook."""
    errors = []
    for k, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                errors.append((k, cell, out))
    return errors


def is_grade_cell(cell) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("grade"))


def simcore_status() -> str | None:
    """None when simcore imports and has RawModule, else a sentence saying why not."""
    try:
        import simcore
    except Exception as exc:  # pragma: no cover
        return f"simcore does not import: {type(exc).__name__}: {exc}"
    if not hasattr(simcore, "RawModule"):
        return "simcore imports but has no RawModule yet (package unfinished)"
    return None
