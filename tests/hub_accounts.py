"""Real Unix accounts for the shared-server tests (not a test module).

Creates the course's accounts with ``useradd`` (homes under a private base folder of the
test, never /home), removes them with ``userdel`` afterwards, and runs commands as one of
them: a shell through ``runuser`` and a Python process through ``subprocess`` with ``user=``,
with nothing inherited from root but a minimal environment.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

#: What an account's processes see: no root's HOME, tokens or config (PYTHONPATH: a
#: worktree that is tested without being installed, as the hub's servers keep it too).
_KEEP_ENV = ("LANG", "LC_ALL", "PYTHONPATH")


def root_problem() -> str | None:
    """Why real accounts cannot be made here, or None."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root to create Unix accounts (useradd); CI runs as root"
    for tool in ("useradd", "userdel", "runuser"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def taken(names) -> list[str]:
    """The names that already have an account on this machine (never touched by the test)."""
    found = []
    for name in names:
        try:
            pwd.getpwnam(name)
            found.append(name)
        except KeyError:
            pass
    return found


class Accounts:
    """Accounts made by this test under ``base/home``; :meth:`remove` undoes everything."""

    def __init__(self, names, base: Path):
        self.base = base
        self.python_exe = sys.executable  # what the accounts run (world_readable_python)
        self.python_env: dict = {}        # and what it needs in its environment
        self.homes = base / "home"
        self.homes.mkdir(parents=True)
        self.made: list[str] = []
        for name in names:
            # -U: a group of the same name; the home gets the machine's default mode
            subprocess.run(["useradd", "-m", "-b", str(self.homes), "-U", "-s", "/bin/sh", name],
                           check=True, capture_output=True, text=True)
            self.made.append(name)

    def pw(self, name: str):
        return pwd.getpwnam(name)

    def home(self, name: str) -> Path:
        return Path(self.pw(name).pw_dir)

    def env(self, name: str, **extra) -> dict:
        env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
        env.update(HOME=str(self.home(name)), USER=name, LOGNAME=name,
                   PATH=os.pathsep.join([str(Path(self.python_exe).parent),
                                         str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
        env.update(self.python_env)
        env.update(extra)
        return env

    def shell(self, name: str, command: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """``command`` in ``sh`` as ``name`` (runuser: no password, no root left)."""
        return subprocess.run([shutil.which("runuser") or "runuser", "-u", name, "--", "sh", "-c", command],
                              cwd=self.home(name), env=self.env(name), capture_output=True,
                              text=True, timeout=timeout)

    def python(self, name: str, code: str, stdin: str = "", timeout: float = 120,
               **env) -> subprocess.CompletedProcess:
        """``code`` in this environment's Python, as ``name`` (setuid through subprocess)."""
        pw = self.pw(name)
        return subprocess.run([self.python_exe, "-c", code], input=stdin, user=pw.pw_uid,
                              group=pw.pw_gid, extra_groups=[], cwd=pw.pw_dir,
                              env=self.env(name, **env), capture_output=True, text=True,
                              timeout=timeout)

    def chown_tree(self, path: Path, name: str) -> None:
        pw = self.pw(name)
        for folder, dirs, files in os.walk(path):
            os.chown(folder, pw.pw_uid, pw.pw_gid)
            for f in files:
                os.chown(os.path.join(folder, f), pw.pw_uid, pw.pw_gid)

    def end_processes(self) -> list[int]:
        """SIGKILL, by pid, every process still running as one of the accounts made here."""
        uids = {self.pw(n).pw_uid for n in self.made if taken([n])}
        killed = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if entry.stat().st_uid in uids:
                    os.kill(int(entry.name), signal.SIGKILL)
                    killed.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass
        return killed

    def remove(self) -> None:
        self.end_processes()
        for name in reversed(self.made):
            subprocess.run(["userdel", "-r", name], capture_output=True, text=True)
            # userdel leaves the group when another account uses it; remove it if it is ours
            subprocess.run(["groupdel", name], capture_output=True, text=True)
        leftover = taken(self.made)
        self.made = []
        shutil.rmtree(self.base, ignore_errors=True)
        assert not leftover, f"accounts left behind: {leftover}"


def private_base(prefix: str) -> Path:
    """A folder that every account can enter (0755) for the test's homes and exchange."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    base.chmod(0o755)
    return base


_PROBE = ("import sys, nbgrader, barrier_course, jupyterhub.singleuser; "
          "print(sys.version); print(barrier_course.__file__)")


def _probe(python: str, accounts: Accounts, name: str) -> subprocess.CompletedProcess:
    pw = accounts.pw(name)
    return subprocess.run([python, "-c", _PROBE], user=pw.pw_uid, group=pw.pw_gid,
                          extra_groups=[], cwd=pw.pw_dir, env=accounts.env(name),
                          capture_output=True, text=True, timeout=120)


def world_readable_python(accounts: Accounts, name: str, base: Path) -> tuple[str | None, str]:
    """A Python that account ``name`` can run with this environment's packages: (path, how).

    Sets ``accounts.python_exe`` and ``accounts.python_env`` to it. A user server runs as its
    student from an environment every account can read (on TLJH, /opt/tljh/user). The
    checkout's .venv serves as it is when its base interpreter is readable by others. When it
    is not (a venv of a pyenv Python in root's home: another account then silently gets the
    system's libpython and standard library, of another patch release), a prefix is made
    under ``base``: the base interpreter's binary, libpython and standard library (no
    site-packages, no test suite), whose site-packages adds the checkout's site-packages
    (a .pth line: no package is copied), links to the environment's Jupyter config and data,
    and console scripts that start it. Returns (None, why) when neither works.
    """
    ours = sys.version.splitlines()[0]
    proc = _probe(sys.executable, accounts, name)
    if proc.returncode == 0 and proc.stdout.splitlines()[0] == ours:
        return sys.executable, "the checkout's environment, readable by every account"
    why = (proc.stderr.strip().splitlines()[-1:] or
           [f"Python {proc.stdout.splitlines()[0]} instead of {ours}"])[0]
    prefix = _prefix_from_base(base / "prefix")
    accounts.python_exe = str(prefix / "bin" / "python")
    accounts.python_env = {"LD_LIBRARY_PATH": str(prefix / "lib")}
    proc = _probe(accounts.python_exe, accounts, name)
    if proc.returncode != 0 or proc.stdout.splitlines()[0] != ours:
        accounts.python_exe, accounts.python_env = sys.executable, {}
        return None, (f"the environment {sys.prefix} cannot be used by another account ({why}),"
                      f" nor a prefix made from {sys.base_prefix}: "
                      f"{(proc.stderr.strip() or proc.stdout)[-300:]}")
    return accounts.python_exe, (f"a world-readable prefix {prefix} (the interpreter of "
                                 f"{sys.base_prefix} with the checkout's site-packages), since "
                                 f"{sys.prefix} is not usable by others: {why}")


def _prefix_from_base(prefix: Path) -> Path:
    import site  # noqa: PLC0415

    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    src = Path(sys.base_prefix)
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    shutil.copy2(Path(sys.executable).resolve() if not (src / "bin" / version).exists()
                 else src / "bin" / version, prefix / "bin" / version)
    (prefix / "bin" / "python").symlink_to(version)
    (prefix / "bin" / "python3").symlink_to(version)
    for lib in src.glob("lib/libpython*.so*"):
        shutil.copy2(lib, prefix / "lib" / lib.name, follow_symlinks=False)
    shutil.copytree(src / "lib" / version, prefix / "lib" / version, symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "test", "idlelib",
                                                  "tkinter", "turtledemo"))
    packages = prefix / "lib" / version / "site-packages"
    packages.mkdir()
    ours = [p for p in site.getsitepackages() if p.startswith(sys.prefix)]
    (packages / "zz_checkout_environment.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in ours))
    venv_bin = Path(sys.prefix) / "bin"
    for script in venv_bin.iterdir():
        try:
            head, _, rest = script.read_text().partition("\n")
        except (UnicodeDecodeError, OSError):
            continue
        target = prefix / "bin" / script.name
        if head.startswith("#!") and head[2:].strip().startswith(str(venv_bin)) \
                and not target.exists():
            target.write_text(f"#!{prefix}/bin/python\n{rest}")
    for path in [prefix, *prefix.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) or
                       path.parent.name == "bin" else 0o644)
    # Jupyter's config (which server extensions are on: nbgrader's, JupyterLab's) and data
    # (kernel specs, lab extensions) of the environment: links, made after the chmod above
    for part in ("etc/jupyter", "share/jupyter"):
        if (Path(sys.prefix) / part).is_dir():
            (prefix / part).parent.mkdir(parents=True, exist_ok=True)
            (prefix / part).parent.chmod(0o755)
            (prefix / part).symlink_to(Path(sys.prefix) / part)
    return prefix


ATTACKER = r'''
import glob, json, os, sys, traceback
attempts = json.load(sys.stdin)
out = {}
for name, code in attempts.items():
    scope = {"os": os, "glob": glob, "json": json}
    try:
        exec(code, scope)
        out[name] = {"ok": True, "output": str(scope.get("result", ""))[:4000]}
    except BaseException as exc:  # every refusal is a result, not a crash
        out[name] = {"ok": False, "output": f"{type(exc).__name__}: {exc}"[:800]}
print(json.dumps(out))
'''


def attack_in_python(accounts: Accounts, name: str, attempts: dict) -> dict:
    """Run each snippet of ``attempts`` (name -> code setting ``result``) in one Python
    process as ``name``; return name -> {"ok", "output"}."""
    proc = accounts.python(name, ATTACKER, stdin=json.dumps(attempts))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
