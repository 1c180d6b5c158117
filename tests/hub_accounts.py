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

#: What an account's processes see: no root's HOME, tokens or config.
_KEEP_ENV = ("LANG", "LC_ALL")


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


def _system_python() -> str | None:
    """A Python of the same minor version outside any home (Debian's /usr/bin/python3.X)."""
    for candidate in (f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}",
                      f"/usr/local/bin/python{sys.version_info[0]}.{sys.version_info[1]}"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def world_readable_python(accounts: Accounts, name: str, base: Path) -> tuple[str | None, str]:
    """A Python that account ``name`` can run with this environment's packages: (path, how).

    A user server runs as its student from an environment that every account can read (on
    TLJH, /opt/tljh/user). The checkout's .venv serves as it is when its base interpreter is
    readable by others. When it is not (e.g. a venv made by a pyenv Python in root's home,
    whose standard library then is not found), a small prefix is made under ``base``: a
    venv of the system's Python of the same minor version (same ABI), without pip, whose
    site-packages adds the checkout's site-packages (a .pth line, nothing is copied), and
    console scripts that start that Python. Returns (None, why) when neither works.
    """
    ours = sys.version.splitlines()[0]
    proc = _probe(sys.executable, accounts, name)
    if proc.returncode == 0 and proc.stdout.splitlines()[0] == ours:
        return sys.executable, "the checkout's environment, readable by every account"
    why = (proc.stderr.strip().splitlines() or [f"Python {proc.stdout.splitlines()[:1]} "
                                                 f"instead of {ours}"])[-1]
    system = _system_python()
    if system is None:
        return None, (f"the environment {sys.prefix} cannot be used by another account ({why}) "
                      "and there is no system Python of the same version to build a "
                      "world-readable prefix from")
    prefix = base / "prefix"
    made = subprocess.run([system, "-m", "venv", "--without-pip", str(prefix)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return None, f"{system} -m venv failed: {made.stderr.strip()[-300:]}"
    import site  # noqa: PLC0415

    ours_site = [p for p in site.getsitepackages() if p.startswith(sys.prefix)]
    lib = next(prefix.glob("lib/python*/site-packages"))
    (lib / "zz_checkout_environment.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in ours_site))
    venv_bin = Path(sys.prefix) / "bin"
    for script in venv_bin.iterdir():
        try:
            head, _, rest = script.read_text().partition("\n")
        except (UnicodeDecodeError, OSError):
            continue
        if head.startswith("#!") and head[2:].strip().startswith(str(venv_bin)) \
                and not (prefix / "bin" / script.name).exists():
            (prefix / "bin" / script.name).write_text(f"#!{prefix}/bin/python\n{rest}")
            (prefix / "bin" / script.name).chmod(0o755)
    for folder in [prefix, *prefix.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o755)
    python = str(prefix / "bin" / "python")
    proc = _probe(python, accounts, name)
    if proc.returncode != 0:
        return None, (f"the environment {sys.prefix} cannot be used by another account ({why}),"
                      f" nor a prefix made from {system}: {proc.stderr.strip()[-300:]}")
    return python, (f"a world-readable prefix {prefix} ({system} with the checkout's "
                    f"site-packages), since {sys.prefix} is not usable by others: {why}")


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
