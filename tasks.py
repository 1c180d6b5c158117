#!/usr/bin/env python3
"""Course tasks, standard library only.

    python3 tasks.py course            # .venv with the course extra, then JupyterLab on my-course/00_start.ipynb
    python3 tasks.py course --instructor   # the same, with nbgrader's instructor tools shown
    python3 tasks.py test [ARGS...]    # .venv with course+test extras, then python -m pytest ARGS
    python3 tasks.py release [--yes]   # regenerate exercises/ from solutions/ (nbgrader);
                                       # --yes: also replace a release folder someone changed
    python3 tasks.py grade ASSIGNMENT [--jobs N] [--cpu-s S] [--wall-s S] [--memory-mb M] [--report]
                                       # grade submitted/ in isolation, update gradebook.db;
                                       # --report: class_report/ASSIGNMENT.html next to it
    python3 tasks.py audit ASSIGNMENT|all [--fast] [--jobs N] [--rules R1,R2]
                                       # mutants of the solution graded: which survive (solutions/AUTHORING.md)
    python3 tasks.py handouts [--no-pdf]   # handouts/: executed HTML + PDF per lesson, workshop bundle

The virtual environment is .venv at the repository root. Installing is skipped when a stamp
file in .venv records the same pyproject.toml and extras (delete .venv to start over).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
MIN_PY, MAX_PY = (3, 10), (3, 14)


def say(msg: str) -> None:
    print(f"[tasks] {msg}", flush=True)


def venv_bin(name: str) -> Path:
    sub = "Scripts" if os.name == "nt" else "bin"
    exe = name + (".exe" if os.name == "nt" else "")
    return VENV / sub / exe


def venv_env() -> dict:
    """The environment for commands run inside the venv: its bin first on PATH."""
    env = dict(os.environ)
    env["PATH"] = str(venv_bin("python").parent) + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(VENV)
    env.pop("PYTHONHOME", None)
    return env


def run(cmd, **kw) -> None:
    say("$ " + " ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def check_python() -> None:
    if not (MIN_PY <= sys.version_info[:2] < MAX_PY):
        sys.exit(f"Python {MIN_PY[0]}.{MIN_PY[1]} to {MAX_PY[0]}.{MAX_PY[1] - 1} is needed, "
                 f"this is {sys.version.split()[0]} ({sys.executable}).")


def create_venv() -> None:
    if venv_bin("python").exists():
        return
    say(f"creating {VENV}")
    try:
        import venv  # noqa: PLC0415

        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        if not venv_bin("python").exists():
            raise RuntimeError("venv created no interpreter")
        subprocess.run([str(venv_bin("python")), "-m", "pip", "--version"], check=True,
                       stdout=subprocess.DEVNULL)
    except Exception as exc:  # e.g. Debian's python3 without python3-venv (no ensurepip)
        say(f"the venv module failed ({exc}); trying virtualenv")
        shutil.rmtree(VENV, ignore_errors=True)
        try:
            run([sys.executable, "-m", "virtualenv", VENV])
        except (subprocess.CalledProcessError, FileNotFoundError):
            run([sys.executable, "-m", "pip", "install", "--user", "virtualenv"])
            run([sys.executable, "-m", "virtualenv", VENV])


def ensure_installed(extras: tuple[str, ...]) -> None:
    """pip install -e '.[extras]' into .venv unless the stamp says it is done already."""
    check_python()
    create_venv()
    # An editable install maps the top-level packages it saw: reinstall when pyproject.toml
    # changes or when a top-level package appears or disappears.
    fingerprint = (ROOT / "pyproject.toml").read_bytes() + "\n".join(
        sorted(p.parent.name for p in ROOT.glob("*/__init__.py"))).encode()
    digest = hashlib.sha256(fingerprint).hexdigest()
    stamp = VENV / ".gpu-barriers-course.stamp"
    have = set()
    if stamp.exists():
        lines = stamp.read_text().split()
        if lines and lines[0] == digest:
            have = set(lines[1:])
    if set(extras) <= have:
        say(f"dependencies up to date ({', '.join(extras)}); delete .venv to reinstall")
        return
    stamp.unlink(missing_ok=True)
    py = venv_bin("python")
    run([py, "-m", "pip", "install", "--upgrade", "pip"], env=venv_env())
    spec = f".[{','.join(extras)}]"
    run([py, "-m", "pip", "install", "-e", spec], cwd=ROOT, env=venv_env())
    stamp.write_text(" ".join([digest, *sorted(set(extras) | have)]) + "\n")


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


LAB_SETTINGS = ROOT / "lab-settings"
WORK = ROOT / "my-course"          # the student's working copy of course/ (git ignores it)
# The course's prebuilt JupyterLab extension (labextension/README.md: CUDA in cells is
# highlighted as C++). A wheel install puts it into share/jupyter/labextensions; an editable
# install (this file's) does not install data files, so JupyterLab is pointed at the checkout.
LAB_EXTENSIONS = ROOT / "labextension" / "prebuilt"


def lab_settings_dir(instructor: bool) -> Path:
    """The JupyterLab application settings of the course (lab-settings/README.md), assembled
    under .venv for the role: overrides.json for everyone, the student page config (the
    instructor's nbgrader panels off) unless ``instructor``."""
    target = VENV / "lab-settings" / ("instructor" if instructor else "student")
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(LAB_SETTINGS / "overrides.json", target / "overrides.json")
    page_config = target / "page_config.json"
    if instructor:
        page_config.unlink(missing_ok=True)
    else:
        shutil.copyfile(LAB_SETTINGS / "student-page_config.json", page_config)
    return target


#: nbgrader's server parts that only an instructor uses: the Formgrader (Generate, Release,
#: Collect, Autograde) and the course list that links to it. A student session switches them
#: off on the server, so that /formgrader answers 404, not only hides their menu entries.
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader",
                                "nbgrader.server_extensions.course_list")


#: the student session's contents manager: course/, exercises/ and solutions/ read-only (the
#: student works in my-course/; barrier_course/nbgrader/student_contents.py)
STUDENT_CONTENTS = "barrier_course.nbgrader.student_contents.StudentContentsManager"


def role_options(instructor: bool) -> list[str]:
    """The JupyterLab command line options of the role (lab-settings/README.md)."""
    options = [f"--LabApp.app_settings_dir={lab_settings_dir(instructor)}"]
    if not instructor:
        options += [f"--ServerApp.jpserver_extensions={name}=False"
                    for name in INSTRUCTOR_SERVER_EXTENSIONS]
        options.append(f"--ServerApp.contents_manager_class={STUDENT_CONTENTS}")
    return options


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kernel_metadata(python: Path | None = None) -> dict:
    """The notebook metadata JupyterLab writes for the course's kernel in ``python``'s
    environment (default: .venv): kernelspec and language_info, Python version included.
    A notebook that already carries exactly these opens unmodified (no dot on its tab)."""
    import json

    code = ("import json; from ipykernel.ipkernel import IPythonKernel as K; "
            "print(json.dumps(dict(K.language_info)))")
    out = subprocess.run([str(python or venv_bin("python")), "-c", code], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                           "name": "python3"},
            "language_info": json.loads(out)}


def _side_name(dest: Path, k: int) -> Path:
    return dest.with_name(dest.stem + (".new" if k == 1 else f".new{k}") + dest.suffix)


def sync_working_copy(source: Path = ROOT / "course", work: Path = WORK,
                      metadata: dict | None = None, links: dict | None = None,
                      label: str = "") -> list[str]:
    """Copy the lessons (or the exercises) into the working copy, where JupyterLab's autosave
    may write.

    A file the student has not changed since it was copied is replaced by the checkout's
    newer version (after a ``git pull``); a changed one is kept, and the new version is put
    next to it as ``<name>.new.ipynb`` (``.new2``, ... when the student works in that one
    too: nothing the student changed is ever overwritten). ``metadata``
    (``kernel_metadata()``) replaces the notebooks' kernel metadata in the copies, so that they
    open unmodified; ``links`` ``{old: new}`` rewrites link targets in markdown cells (the
    copy's neighbours are not the checkout's). Returns what it did, one line per file (its path
    after ``label``).
    """
    import json

    record_path = work / ".copied-from-course.json"
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    done = []

    def copy(src, dest):
        if (metadata or links) and src.suffix == ".ipynb":
            nb = json.loads(src.read_text(encoding="utf-8"))
            nb["metadata"].update(metadata or {})
            for cell in nb["cells"]:
                if cell.get("cell_type") == "markdown" and links:
                    text = "".join(cell["source"])
                    for old, new in links.items():
                        text = text.replace(f"]({old}", f"]({new}")
                    cell["source"] = text.splitlines(keepends=True)
            dest.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
        else:
            shutil.copyfile(src, dest)
        return _digest(dest)

    for src in sorted(source.rglob("*")):
        rel = src.relative_to(source).as_posix()
        if not src.is_file() or ".ipynb_checkpoints" in src.parts or "__pycache__" in src.parts:
            continue
        dest = work / rel
        new = _digest(src)
        seen = record.get(rel, {})
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            record[rel] = {"source": new, "copy": copy(src, dest)}
        elif seen.get("source") == new:
            continue
        elif _digest(dest) == seen.get("copy"):             # untouched by the student
            record[rel] = {"source": new, "copy": copy(src, dest)}
            done.append(f"updated {label}{rel}")
        else:
            sides = seen.get("sides", {})                   # side name -> digest we wrote
            k = 1
            while _side_name(dest, k).exists() and \
                    _digest(_side_name(dest, k)) != sides.get(_side_name(dest, k).name):
                k += 1                                      # the student works in that one
            side = _side_name(dest, k)
            sides[side.name] = copy(src, side)
            record[rel] = {"source": new, "copy": seen.get("copy"), "sides": sides}
            done.append(f"kept your {label}{rel}; the course's new version is "
                        f"{label}{side.relative_to(work).as_posix()}")
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return done


#: the lessons link to ../exercises/ (the committed release, next to course/); in the working
#: copy they link to the student's own copy of the exercises, my-course/exercises/
EXERCISE_LINKS = {"../exercises/": "exercises/"}


def sync_course(work: Path = WORK, metadata: dict | None = None) -> list[str]:
    """The student's whole working copy: the lessons, and the exercises in ``work/exercises``."""
    done = sync_working_copy(ROOT / "course", work, metadata=metadata, links=EXERCISE_LINKS)
    return done + sync_working_copy(ROOT / "exercises", work / "exercises", metadata=metadata,
                                    label="exercises/")


def cmd_course(args: list[str]) -> int:
    """JupyterLab opened on the working copy's 00_start.ipynb.

    The lessons open from my-course/, a copy of course/ that git ignores, and the exercises
    from my-course/exercises/, a copy of exercises/, so that running and autosaving them never
    dirties the checkout (``git pull`` keeps working) and no release of the exercises can touch
    the student's answers. The server's root is the repository, so that nbgrader (assignment
    list) finds nbgrader_config.py. ``--instructor`` shows nbgrader's
    Create Assignment panel and Validate button (lab-settings/README.md).
    """
    instructor = "--instructor" in args
    args = [a for a in args if a != "--instructor"]
    ensure_installed(("course",))
    try:
        metadata = kernel_metadata()
    except (OSError, subprocess.CalledProcessError) as err:    # only the clean open is lost
        say(f"could not ask the kernel for its metadata ({err}); notebooks may open modified")
        metadata = None
    for line in sync_course(metadata=metadata):
        say(line)
    cmd = [venv_bin("jupyter"), "lab", *role_options(instructor),
           f"--LabApp.extra_labextensions_path={LAB_EXTENSIONS}"]
    if not has_display():
        cmd.append("--no-browser")
        say("no display found: open the URL that JupyterLab prints below in a browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers, Binder-like machines, CI
    cmd += args
    start = WORK.relative_to(ROOT) / "00_start.ipynb"
    if (ROOT / start).exists():
        # also the URL printed without a browser: /lab/tree/my-course/00_start.ipynb?token=...
        cmd.append(f"--LabApp.default_url=/lab/tree/{start.as_posix()}")
    say("$ " + " ".join(str(c) for c in cmd))
    try:
        return subprocess.call([str(c) for c in cmd], cwd=ROOT, env=venv_env())
    except KeyboardInterrupt:
        return 0


def cmd_test(args: list[str]) -> int:
    ensure_installed(("course", "test"))
    if args and args[0] == "--":
        args = args[1:]
    cmd = [venv_bin("python"), "-m", "pytest", *args]
    say("$ " + " ".join(str(c) for c in cmd))
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, env=venv_env())


def _release_changes(names: list[str]) -> dict:
    """{assignment: files someone changed in its release folder} (barrier_course/nbgrader/release_guard.py),
    asked of the course's own environment (nbgrader's Python)."""
    import json

    code = ("import json, sys; from barrier_course.nbgrader.release_guard import changed_files; "
            "root = sys.argv[1]; print(json.dumps({n: changed_files(root, f'{root}/exercises/{n}') "
            "for n in sys.argv[2:]}))")
    out = subprocess.run([str(venv_bin("python")), "-c", code, str(ROOT), *names], check=True,
                         stdout=subprocess.PIPE, text=True, cwd=ROOT, env=venv_env()).stdout
    return {name: files for name, files in json.loads(out).items() if files}


def cmd_release(args: list[str]) -> int:
    """Regenerate the committed student release exercises/ from solutions/.

    A release folder holding changes (someone worked in it) is replaced only when confirmed:
    ``--yes``, or "y" to the question on a terminal; its old content is copied to
    release-backups/ either way (barrier_course/nbgrader/release_guard.py).
    """
    yes = "--yes" in args
    args = [a for a in args if a != "--yes"]
    ensure_installed(("course",))
    names = args or sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
    env = venv_env()
    changes = _release_changes(names)
    if changes and not yes:
        for name, files in changes.items():
            say(f"exercises/{name} holds changes since its release: {', '.join(files)}")
        if sys.stdin is not None and sys.stdin.isatty():
            yes = input("[tasks] replace them (a copy goes to release-backups/)? [y/N] ").strip() \
                .lower() in ("y", "yes")
        if not yes:
            say("nothing replaced; run `python3 tasks.py release --yes` to replace them "
                "(a copy goes to release-backups/)")
            return 1
    if yes:
        env["BARRIER_COURSE_REPLACE_RELEASE"] = "1"
    for name in names:
        run([venv_bin("nbgrader"), "generate_assignment", name, "--force"], cwd=ROOT, env=env)
    # generate_assignment also records the assignment in the instructor's gradebook.db
    # (ignored by git); nothing else is left behind.
    say("release regenerated: review `git diff exercises/` and commit it")
    return 0


def cmd_grade(args: list[str]) -> int:
    """Grade every submission of an assignment, each in its own limited interpreter.

    See barrier_course/grading/class_grading.py; the limits per submission and their defaults are in
    the README (section "Grading with nbgrader").
    """
    if not args or args[0].startswith("-"):
        print("usage: python3 tasks.py grade ASSIGNMENT [--jobs N] [--cpu-s S] [--wall-s S] "
              "[--memory-mb M] [--report] [--shard I/N --scores DIR]")
        return 2
    ensure_installed(("course",))
    cmd = [venv_bin("python"), "-m", "barrier_course.grading.class_grading", *args]
    say("$ " + " ".join(str(c) for c in cmd))
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, env=venv_env())


COMMANDS = {"course": cmd_course, "test": cmd_test, "release": cmd_release, "grade": cmd_grade}


def cmd_handouts(args: list[str]) -> int:
    """Printable handouts from the lessons: executed HTML per lesson, a one-file workshop
    bundle, and their PDFs (barrier_course/lessons/handouts.py says how and why)."""
    ensure_installed(("course",))
    if not any(a == "--out" or a.startswith("--out=") for a in args):
        args = ["--out", str(ROOT / "handouts"), *args]
    cmd = [venv_bin("python"), "-m", "barrier_course.lessons.handouts", *args]
    say("$ " + " ".join(str(c) for c in cmd))
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, env=venv_env())


COMMANDS["handouts"] = cmd_handouts


def cmd_audit(args: list[str]) -> int:
    """Grade the mutants of an exercise's solution; report the survivors (barrier_course/grading/audit.py)."""
    if not args or args[0].startswith("-"):
        print("usage: python3 tasks.py audit ASSIGNMENT|all [--fast] [--jobs N] [--rules R1,R2]")
        return 2
    ensure_installed(("course",))
    cmd = [venv_bin("python"), "-m", "barrier_course.grading.audit", *args]
    say("$ " + " ".join(str(c) for c in cmd))
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, env=venv_env())


COMMANDS["audit"] = cmd_audit


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
