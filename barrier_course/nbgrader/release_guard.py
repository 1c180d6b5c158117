"""No instructor command deletes a student's work in the release folder without asking.

nbgrader's ``generate_assignment --force`` (what ``python3 tasks.py release`` and the
Formgrader's *Generate* button run) removes ``exercises/<assignment>/`` before writing the new
release. A student who worked in that folder (the committed release, before ``my-course/``
held their copy) lost a finished answer that way. :func:`protect_releases`, called from
``nbgrader_config.py``, makes every generate in this course check the folder first:

* files there that are neither the committed release (``git status`` says unchanged) nor what
  the last generate wrote (``.release-manifest.json``, ignored by git) are someone's work;
* then the folder is first copied to ``release-backups/<assignment>-<UTC time>/`` (ignored by
  git) and, unless the replacement was confirmed (``python3 tasks.py release --yes``, or its
  question answered yes, which set ``BARRIER_COURSE_REPLACE_RELEASE=1``), nothing is removed:
  the generate of that assignment stops with an error naming the changed files, the backup
  and the command that confirms.

Where git is missing (a copy of the course without its history) every existing file counts as
someone's work: asking once too often loses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

CONFIRM_ENV = "BARRIER_COURSE_REPLACE_RELEASE"
MANIFEST = ".release-manifest.json"
BACKUPS = "release-backups"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(folder: Path) -> list:
    return sorted(p for p in folder.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts)


def _manifest(root: Path) -> dict:
    try:
        return json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}


def _git_changed(root: Path, folder: Path) -> set | None:
    """Files under ``folder`` that git sees changed or untracked; None without git."""
    try:
        proc = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--",
                               str(folder)], cwd=root, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()
    changed = set()
    for line in proc.stdout.splitlines():
        name = line[3:].strip().strip('"')
        if " -> " in name:
            name = name.split(" -> ", 1)[1]
        changed.add((Path(top) / name).resolve())
    return changed


def changed_files(root, folder) -> list:
    """The files of a release folder that someone changed (relative to ``root``)."""
    root, folder = Path(root).resolve(), Path(folder).resolve()
    if not folder.is_dir():
        return []
    by_git = _git_changed(root, folder)
    written = _manifest(root)
    changed = []
    for path in _files(folder):
        rel = path.relative_to(root).as_posix()
        if by_git is not None and path.resolve() not in by_git:
            continue                                        # the committed release
        if written.get(rel) == _digest(path):
            continue                                        # what the last generate wrote
        changed.append(rel)
    return changed


def back_up(root, folder) -> Path:
    """Copy a release folder to release-backups/<name>-<UTC time>/; -> the copy."""
    root, folder = Path(root).resolve(), Path(folder).resolve()
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    dest = root / BACKUPS / f"{folder.name}-{stamp}"
    k = 1
    while dest.exists():
        k += 1
        dest = root / BACKUPS / f"{folder.name}-{stamp}-{k}"
    shutil.copytree(folder, dest)
    return dest


def record_release(root, folder) -> None:
    """Remember what a generate wrote, so that the next one knows it is nobody's work."""
    root, folder = Path(root).resolve(), Path(folder).resolve()
    written = _manifest(root)
    prefix = folder.relative_to(root).as_posix() + "/"
    written = {k: v for k, v in written.items() if not k.startswith(prefix)}
    for path in _files(folder):
        written[path.relative_to(root).as_posix()] = _digest(path)
    (root / MANIFEST).write_text(json.dumps(written, indent=1, sort_keys=True) + "\n")


def confirmed() -> bool:
    return os.environ.get(CONFIRM_ENV) == "1"


def refusal(assignment: str, changed: list, backup: Path, root) -> str:
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return (f"Not replacing the release of {assignment}: {shown} changed since it was released "
            f"(someone's work?). A copy is in {Path(backup).relative_to(Path(root).resolve())}; "
            f"nothing was removed. To replace it anyway: python3 tasks.py release {assignment} --yes")


def protect_releases(root) -> None:
    """Make nbgrader's GenerateAssignment (command line and Formgrader) check before removing."""
    from nbgrader.converters import GenerateAssignment  # noqa: PLC0415
    from nbgrader.converters.base import NbGraderException  # noqa: PLC0415

    if getattr(GenerateAssignment, "_barrier_course_guard", False):
        return
    root = Path(root).resolve()
    init_destination = GenerateAssignment.init_destination
    convert_notebooks = GenerateAssignment.convert_notebooks

    def guarded_init_destination(self, assignment_id, student_id):
        dest = Path(os.path.normpath(self._format_dest(assignment_id, student_id)))
        changed = changed_files(root, dest)
        if changed:
            backup = back_up(root, dest)
            if not confirmed():
                message = refusal(assignment_id, changed, backup, root)
                self.log.error(message)
                self._barrier_course_refused.append(message)
                return False          # nbgrader then skips it; an exception would rmtree it
            self.log.warning("Replacing the release of %s as confirmed; the old one is in %s",
                             assignment_id, backup)
        go = init_destination(self, assignment_id, student_id)
        if go:
            self._barrier_course_written.append(dest)
        return go

    def guarded_convert_notebooks(self):
        self._barrier_course_refused, self._barrier_course_written = [], []
        convert_notebooks(self)
        for dest in self._barrier_course_written:
            if dest.is_dir():
                record_release(root, dest)
        if self._barrier_course_refused:
            raise NbGraderException("\n".join(self._barrier_course_refused))

    GenerateAssignment.init_destination = guarded_init_destination
    GenerateAssignment.convert_notebooks = guarded_convert_notebooks
    GenerateAssignment._barrier_course_guard = True
