"""A class on a shared server with real Unix accounts, attacked by one of its students.

The set-up is the README's ("A class on a shared server"), on this machine: accounts
``instructor``, ``grader-gpu-barriers``, ``alice``, ``bob`` and ``mallory`` made with
``useradd`` (homes under a base folder of the test), JupyterHub's LocalProcessSpawner starting
each user's server as that user and the course service as the grader account, behind a real
configurable-http-proxy on 127.0.0.1; the exchange prepared by
deploy/jupyterhub/setup_exchange.sh and nbgrader configured by
deploy/jupyterhub/nbgrader_config.py; homes closed by nbgrader_hub.private_home.

The class works: the instructor releases ex01 in the Formgrader, alice and bob fetch and
submit through their servers, the instructor collects, grades and releases feedback, they
fetch it. Meanwhile mallory, a student, attacks from her account (a shell through runuser
and a Python process through subprocess with user=): before the release she tries to
pre-create the course's exchange folders; after the submissions she tries to list, read,
change and delete alice's submission (also when its folder's name has leaked to her), to
read alice's work, to write into outbound/, to read gradebook.db, solutions/ and the
grader's course folder, and to use the Formgrader with her own token; after the feedback,
to find, read, change and delete alice's feedback; last, to swap the course's exchange
folder for one of her own. Every attempt must fail; each is checked by its effect (root
looks at the files afterwards, or the secret in alice's answer must not reach mallory).

``HUB_EXCHANGE_SETUP=legacy`` runs the same class on the set-up the README described before
(``chmod 777`` exchange, nbgrader's default exchange classes, homes as useradd makes them):
there the attacks succeed, which is what the hardening is for (not run in CI).

The accounts' servers need a Python that every account can run (on TLJH, /opt/tljh/user).
The checkout's .venv serves when its base interpreter is readable by others; when it is not
(a pyenv Python in root's home, as on the CI machine), hub_accounts.world_readable_python
makes a small prefix in the test's folder from the system's Python of the same version,
whose site-packages adds the checkout's (nothing is copied).

Skipped, with the reason, when not root, without Node.js / configurable-http-proxy, when one
of the account names already exists on the machine, or when no Python usable by the other
accounts can be had (the checkout under a folder others cannot enter).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from course_testing import ASSIGNMENT, copy_course
from hub_accounts import (Accounts, attack_in_python, private_base, root_problem, taken,
                          world_readable_python)
from test_jupyterhub import (COURSE_ID, DEPLOY, NOTEBOOK, STARTUP_S, STUB, Hub, _missing, _ok,
                             hub_config)

pytestmark = [pytest.mark.slow, pytest.mark.hub]

SETUP = os.environ.get("HUB_EXCHANGE_SETUP", "hardened")
GRADER = f"grader-{COURSE_ID}"
INSTRUCTOR = "instructor"
STUDENTS = ("alice", "bob", "mallory")
ACCOUNTS = (INSTRUCTOR, GRADER, *STUDENTS)
#: a secret only alice's answer contains: it must never reach mallory
SECRET = "alice-secret-" + secrets.token_hex(6)
ANSWERS = {
    "alice": f"tile[t] = (i < n) ? in[i] : 0.0f;  // {SECRET}\n__syncthreads();",
    "bob": "tile[t] = (i < n) ? in[i] : 0.0f;",
    "mallory": "tile[t] = (i < n) ? in[i] : 0.0f;  // mallory-mark\n__syncthreads();",
}
#: the time of a submission mallory forges in alice's name: later than any real one
FORGED_TIME = "2099-01-01 00:00:00.000000 UTC"


def _hub_config(base: Path, accounts: Accounts, ports, token, proxy, students=STUDENTS,
                setup: str = SETUP, startup_s: int = STARTUP_S) -> str:
    """The hub's config: the workshop's (add_courses) on LocalProcessSpawner, real accounts."""
    python = [accounts.python_exe, "-m", "jupyterhub.singleuser"]
    course = {COURSE_ID: {"instructors": [INSTRUCTOR], "students": list(students),
                          "grader": GRADER, "directory": str(accounts.home(GRADER) / "course"),
                          "port": ports["service"], "command": python}}
    machine_env = {"JUPYTER_CONFIG_PATH": str(base / "etc-jupyter"),
                   "PATH": os.pathsep.join([str(Path(accounts.python_exe).parent),
                                            str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
                   **accounts.python_env}
    hook = ("from nbgrader_hub import private_home\nc.Spawner.pre_spawn_hook = private_home"
            if setup == "hardened" else "# legacy: homes as useradd made them")
    # real accounts: each server runs as its Unix user, in its home (TLJH does the same); the
    # course service runs as the grader account
    spawner = 'c.JupyterHub.spawner_class = "localprocess"\n' + hook
    return hub_config(base, ports, token, proxy, course=course, machine_env=machine_env,
                      spawner=spawner, run_as_grader=True, startup_s=startup_s)


def _machine_config(base: Path, exchange: Path, setup: str = SETUP) -> None:
    machine = (DEPLOY / "nbgrader_config.py").read_text()
    default = 'EXCHANGE_ROOT = "/srv/nbgrader/exchange"'
    assert machine.count(default) == 1, "deploy/jupyterhub/nbgrader_config.py changed its exchange line"
    machine = machine.replace(default, f"EXCHANGE_ROOT = {str(exchange)!r}")
    if setup == "legacy":  # nbgrader's own exchange classes, as before
        machine = re.sub(r"# nbgrader's exchange, changed only.*?\n\n", "", machine, flags=re.S)
        assert "ExchangeFactory" not in machine
    etc = base / "etc-jupyter"
    etc.mkdir(mode=0o755)
    (etc / "nbgrader_config.py").write_text(machine)
    (etc / "nbgrader_config.py").chmod(0o644)


def _prepare_exchange(accounts: Accounts, exchange: Path, setup: str = SETUP) -> None:
    if setup == "legacy":  # the README's step 2 before the hardening
        exchange.mkdir(parents=True)
        exchange.chmod(0o777)
        return
    proc = subprocess.run(["sh", str(DEPLOY / "setup_exchange.sh"), str(exchange), COURSE_ID,
                           GRADER], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _answer_as(accounts: Accounts, student: str, path: Path, code: str) -> None:
    """The student edits their own notebook, as themselves."""
    program = f"""
import json, re
path, code = {str(path)!r}, {code!r}
stub = re.compile({STUB.pattern!r}, re.M)
nb = json.load(open(path))
for cell in nb["cells"]:
    src = "".join(cell["source"])
    m = stub.search(src)
    if m:
        lines = "\\n".join(m["indent"] + line for line in code.splitlines())
        cell["source"] = src[: m.start()] + lines + src[m.end():]
        break
else:
    raise SystemExit("no stub line")
json.dump(nb, open(path, "w"), indent=1)
"""
    proc = accounts.python(student, program)
    assert proc.returncode == 0, proc.stderr


# ---- mallory's attempts: (shell command, Python snippet); {placeholders} from _targets ----

PRE_RELEASE = {
    "pre-create the course's folders": (
        "mkdir -p {course}/inbound {course}/outbound/{assignment} {course}/feedback",
        "for p in ('inbound', 'outbound/{assignment}', 'feedback'):\n"
        "    os.makedirs('{course}/' + p, exist_ok=True)"),
    "pre-create a course to come": (
        "mkdir -p {exchange}/{course_id}-next/inbound",
        "os.makedirs('{exchange}/{course_id}-next/outbound', exist_ok=True)"),
}

AFTER_SUBMIT = {
    "list the submissions": (
        "ls -a {course}/inbound",
        "result = os.listdir('{course}/inbound')"),
    "find alice's submission in her home": (
        "ls -aR {alice_home}",
        "def refused(error):\n"
        "    raise error\n"
        "result = [os.path.join(d, f) for d, _, fs in os.walk('{alice_home}', onerror=refused)"
        " for f in fs]"),
    "read alice's work in her home": (
        "cat {alice_home}/{course_id}/{assignment}/{notebook}",
        "result = open('{alice_home}/{course_id}/{assignment}/{notebook}').read()"),
    "read alice's submission (its name leaked)": (
        "cat {submission}/{notebook}",
        "result = open('{submission}/{notebook}').read()"),
    "change alice's submission (its name leaked)": (
        "echo forged > {submission}/{notebook}",
        "open('{submission}/forged', 'w').write('forged')\n"
        "os.replace('{submission}/forged', '{submission}/{notebook}')"),
    "write into outbound": (
        "mkdir {course}/outbound/ex99_forged && echo forged > {course}/outbound/{assignment}/forged.ipynb",
        "open('{course}/outbound/{assignment}/forged2.ipynb', 'w').write('forged')"),
    "read gradebook.db": (
        "head -c 15 {course_folder}/gradebook.db",
        "result = open('{course_folder}/gradebook.db', 'rb').read(15).decode()"),
    "read solutions/": (
        "cat {course_folder}/solutions/{assignment}/{notebook}",
        "result = open('{course_folder}/solutions/{assignment}/{notebook}').read()"),
    "list the grader's course folder": (
        "ls -a {course_folder}",
        "result = os.listdir('{course_folder}')"),
}

#: after the attempts to change it (so that each effect is judged on its own)
DELETE_SUBMISSION = {
    "delete alice's submission (its name leaked)": (
        "rm -r {submission}",
        "import shutil; shutil.rmtree('{submission}')"),
}

AFTER_FEEDBACK = {
    "list the released feedback": (
        "ls -a {course}/feedback",
        "result = os.listdir('{course}/feedback')"),
    "read alice's feedback": (
        # through her home, or through the secret of a submission whose name leaked
        "cat {alice_home}/{course_id}/{assignment}/feedback/*/*.html",
        "from nbgrader.utils import notebook_hash\n"
        "secret = open('{submission_copy}/submission_secret.txt').read()\n"
        "result = open('{course}/feedback/' + notebook_hash(secret=secret, "
        "notebook_id='{assignment}') + '.html').read()"),
    "change alice's feedback (its name leaked)": (
        "echo forged > {feedback}",
        "open('{course}/feedback/forged.html', 'w').write('forged')\n"
        "os.replace('{course}/feedback/forged.html', '{feedback}')"),
    "delete alice's feedback (its name leaked)": (
        "rm {feedback}",  # not -f: its exit status must say whether it went
        "os.remove('{feedback}')"),
}

LAST = {
    "swap the course's exchange folder": (
        "mv {course} {exchange}/.{course_id}-old && mkdir -p {course}/outbound/{assignment} "
        "{course}/feedback && echo forged > {course}/outbound/{assignment}/{notebook}",
        "os.rename('{course}', '{exchange}/.{course_id}-old2')"),
}


def _attack(accounts: Accounts, attempts: dict, targets: dict) -> dict:
    """Each attempt as mallory, in a shell and in Python; name -> {"shell": .., "python": ..}."""
    results = {}
    snippets = {}
    quoted = {k: shlex.quote(str(v)) for k, v in targets.items()}
    for name, (shell, python) in attempts.items():
        proc = accounts.shell("mallory", shell.format(**quoted))
        results[name] = {"shell": {"ok": proc.returncode == 0,
                                   "output": (proc.stdout + proc.stderr)[:4000]}}
        snippets[name] = python.format(**targets)
    for name, outcome in attack_in_python(accounts, "mallory", snippets).items():
        results[name]["python"] = outcome
    return results


def _owned_by(path: Path, uid: int) -> list[str]:
    """Everything at or under path that belongs to uid."""
    found = []
    if not path.exists():
        return found
    for p in [path, *path.rglob("*")]:
        try:
            if p.lstat().st_uid == uid:
                found.append(str(p))
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def attacked_class():
    why = root_problem() or _missing()
    if why:
        pytest.skip(why)
    if taken(ACCOUNTS):
        pytest.skip(f"accounts {taken(ACCOUNTS)} exist on this machine already; the test "
                    "never touches accounts it did not make")
    base = private_base("gpu-barriers-hub-")
    accounts = None
    try:
        accounts = Accounts(ACCOUNTS, base)
        python, how = world_readable_python(accounts, "alice", base)
        if python is None:
            pytest.skip(how)
        print(f"\nthe accounts run {how}")
        yield from _run_class(base, accounts)
    finally:
        if accounts is not None:
            accounts.remove()
        shutil.rmtree(base, ignore_errors=True)


def _run_class(base: Path, accounts: Accounts):
    exchange = base / "srv" / "nbgrader" / "exchange"
    course_folder = accounts.home(GRADER) / "course"
    copy_course(course_folder)
    accounts.chown_tree(course_folder, GRADER)
    _machine_config(base, exchange)
    _prepare_exchange(accounts, exchange)
    mallory_uid = accounts.pw("mallory").pw_uid
    course = exchange / COURSE_ID
    targets = {"exchange": exchange, "course": course, "course_id": COURSE_ID,
               "assignment": ASSIGNMENT, "notebook": NOTEBOOK,
               "alice_home": accounts.home("alice"), "course_folder": course_folder}
    steps, attacks, effects = {}, {}, {}

    hub = Hub(base, lambda ports, token, proxy: _hub_config(base, accounts, ports, token, proxy))
    (base / "hub").chmod(0o700)
    try:
        hub.wait("the hub", lambda: hub.request("GET", "/hub/api/").status_code == 200)
        service = f"/services/{COURSE_ID}"
        hub.wait("the course service", lambda: hub.request(
            "GET", f"{service}/formgrader/api/status").status_code == 200)
        for user in (INSTRUCTOR, *STUDENTS):
            hub.start_server(user)
        steps["home modes"] = {u: oct(accounts.home(u).stat().st_mode & 0o7777)
                               for u in ACCOUNTS}

        # before the release: mallory tries to own the course's exchange folders
        attacks.update(_attack(accounts, PRE_RELEASE, targets))
        effects["pre-create the course's folders"] = _owned_by(course, mallory_uid)
        effects["pre-create a course to come"] = _owned_by(exchange / f"{COURSE_ID}-next",
                                                           mallory_uid)
        if SETUP == "legacy":  # undone, so that the rest of the class can go on
            for p in (course, exchange / f"{COURSE_ID}-next"):
                shutil.rmtree(p, ignore_errors=True)

        fg = f"{service}/formgrader/api/assignment/{ASSIGNMENT}"
        _ok(hub.request("POST", f"{fg}/assign", user=INSTRUCTOR), "generate")
        _ok(hub.request("POST", f"{fg}/release", user=INSTRUCTOR), "release")
        form = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
        for student in STUDENTS:
            server = f"/user/{student}"
            _ok(hub.request("POST", f"{server}/assignments/fetch", data=form, user=student), "fetch")
            fetched = accounts.home(student) / COURSE_ID / ASSIGNMENT / NOTEBOOK
            steps[f"fetched owner {student}"] = fetched.stat().st_uid == accounts.pw(student).pw_uid
            _answer_as(accounts, student, fetched, ANSWERS[student])
            _ok(hub.request("POST", f"{server}/assignments/submit", data=form, user=student),
                "submit")

        # root finds alice's submission (the "leaked" name mallory is given)
        alice_uid = accounts.pw("alice").pw_uid
        mine = [p for p in (course / "inbound").iterdir() if p.stat().st_uid == alice_uid]
        assert len(mine) == 1, mine
        submission = mine[0]
        steps["submission modes"] = {str(p.relative_to(course)): oct(p.stat().st_mode & 0o7777)
                                     for p in [course / "inbound", submission, *submission.iterdir()]}
        copy = base / "alice-submission-before"
        shutil.copytree(submission, copy)
        targets.update(submission=submission, submission_copy=submission)
        attacks.update(_attack(accounts, AFTER_SUBMIT, targets))
        effects["change alice's submission (its name leaked)"] = (
            not (submission / NOTEBOOK).exists()
            or (submission / NOTEBOOK).read_bytes() != (copy / NOTEBOOK).read_bytes()
            or bool(_owned_by(submission, mallory_uid)))
        attacks.update(_attack(accounts, DELETE_SUBMISSION, targets))
        effects["delete alice's submission (its name leaked)"] = not (submission / NOTEBOOK).exists()
        effects["write into outbound"] = _owned_by(course / "outbound", mallory_uid)

        # a submission in alice's name: creating a folder in inbound/ is what submitting is,
        # so this succeeds; what must fail is collecting it as alice's
        forged = course / "inbound" / f"alice+{ASSIGNMENT}+{FORGED_TIME}+forged"
        mine = accounts.home("mallory") / COURSE_ID / ASSIGNMENT / NOTEBOOK
        q = shlex.quote
        steps["forged in alice's name"] = accounts.shell("mallory", (
            f"mkdir {q(str(forged))} && cp {q(str(mine))} {q(str(forged))}/ && "
            f"echo {q(FORGED_TIME)} > {q(str(forged))}/timestamp.txt")).returncode == 0

        # the formgrader with mallory's own token: through the proxy and at the service itself
        formgrader = {}
        for method, path in (("GET", f"{service}/formgrader/api/assignments"),
                             ("GET", f"{service}/formgrader/api/submissions/{ASSIGNMENT}"),
                             ("POST", f"{fg}/collect"), ("GET", f"{service}/formgrader/")):
            formgrader[f"{method} {path}"] = hub.request(method, path, user="mallory").status_code
        direct = hub.requests.get(
            f"http://127.0.0.1:{hub.ports['service']}{service}/formgrader/api/assignments",
            headers={"Authorization": f"token {hub.user_tokens['mallory']}"},
            allow_redirects=False, timeout=60)
        formgrader["GET (the service's own port)"] = direct.status_code
        steps["mallory at the formgrader"] = formgrader

        def flow(what, call):
            """A step of the class; on the legacy set-up mallory may have broken it: noted."""
            try:
                return call()
            except AssertionError as exc:
                if SETUP == "hardened":
                    raise
                steps.setdefault("class broken by the attacks", []).append(f"{what}: {exc}"[:600])
                return None

        steps["collect"] = flow("collect", lambda: _ok(
            hub.request("POST", f"{fg}/collect", user=INSTRUCTOR), "collect"))
        collected = course_folder / "submitted" / "alice" / ASSIGNMENT / NOTEBOOK
        steps["alice's collected work"] = collected.read_text() if collected.is_file() else ""
        for student in STUDENTS:
            flow(f"autograde {student}", lambda: _ok(hub.request(
                "POST", f"{service}/formgrader/api/submission/{ASSIGNMENT}/{student}/autograde",
                user=INSTRUCTOR), f"autograde {student}"))
        flow("feedback", lambda: _ok(hub.request("POST", f"{fg}/generate_feedback",
                                                 user=INSTRUCTOR), "feedback"))
        flow("release feedback", lambda: _ok(hub.request("POST", f"{fg}/release_feedback",
                                                         user=INSTRUCTOR), "release feedback"))
        for student in STUDENTS:
            flow(f"fetch feedback {student}", lambda: _ok(hub.request(
                "POST", f"/user/{student}/assignments/fetch_feedback", data=form, user=student),
                "fetch feedback"))
        submissions = flow("submissions", lambda: _ok(hub.request(
            "GET", f"{service}/formgrader/api/submissions/{ASSIGNMENT}", user=INSTRUCTOR),
            "submissions")) or []
        steps["scores"] = {s["student"]: s["score"] for s in submissions}

        from nbgrader.utils import notebook_hash  # noqa: PLC0415
        secret = (copy / "submission_secret.txt").read_text()
        feedback = course / "feedback" / f"{notebook_hash(secret=secret, notebook_id=ASSIGNMENT)}.html"
        steps["alice's feedback released"] = feedback.is_file()
        before = feedback.read_bytes() if feedback.is_file() else b""
        targets.update(feedback=feedback, submission_copy=submission)
        attacks.update(_attack(accounts, AFTER_FEEDBACK, targets))
        effects["change alice's feedback (its name leaked)"] = (
            feedback.is_file() and feedback.read_bytes() != before)
        effects["delete alice's feedback (its name leaked)"] = not feedback.is_file()

        attacks.update(_attack(accounts, LAST, targets))
        effects["swap the course's exchange folder"] = (
            not course.exists() or course.stat().st_uid == mallory_uid)

        steps["fetched feedback"] = {
            s: [str(p) for p in (accounts.home(s) / COURSE_ID / ASSIGNMENT / "feedback").glob(
                f"*/{ASSIGNMENT}.html")] for s in STUDENTS}
        steps["gradebook owner"] = (course_folder / "gradebook.db").stat().st_uid == \
            accounts.pw(GRADER).pw_uid
        with sqlite3.connect(course_folder / "gradebook.db") as db:
            steps["gradebook students"] = sorted(r[0] for r in db.execute("select id from student"))
        print(f"\nshared server ({SETUP}):", json.dumps(steps, default=str)[:3000])
        print("mallory's attempts:", json.dumps(
            {k: {how: v[how]["ok"] for how in ("shell", "python")} for k, v in attacks.items()}))
        yield {"steps": steps, "attacks": attacks, "effects": effects, "targets": targets}
    finally:
        hub.stop()


# ---- the class works ------------------------------------------------------------------------


def test_each_server_runs_as_its_own_account(attacked_class):
    steps = attacked_class["steps"]
    for student in STUDENTS:
        assert steps[f"fetched owner {student}"], student
    assert steps["gradebook owner"], "the course service did not run as the grader account"


def test_the_class_is_graded_through_the_course_service(attacked_class):
    scores = attacked_class["steps"]["scores"]
    assert scores["alice"] == 10.0 and scores["mallory"] == 10.0, scores
    assert scores["bob"] < 10.0, scores


def test_every_student_fetches_their_feedback(attacked_class):
    fetched = attacked_class["steps"]["fetched feedback"]
    assert all(len(pages) == 1 for pages in fetched.values()), fetched


def test_homes_are_private_once_a_server_started(attacked_class):
    modes = attacked_class["steps"]["home modes"]
    for user in (INSTRUCTOR, *STUDENTS, GRADER):
        assert modes[user] == "0o700", modes


def test_submissions_are_closed_to_other_students(attacked_class):
    modes = attacked_class["steps"]["submission modes"]
    assert modes["inbound"] == "0o3733", modes
    for path, mode in modes.items():
        if path != "inbound":
            assert int(mode, 8) & 0o007 == 0, (path, mode)


# ---- every attempt of mallory fails -----------------------------------------------------------


def _refused(attacked_class, name: str, *, secrets_not_in_output=()) -> None:
    """Both attempts (shell and Python) ended in an error, and nothing secret reached her."""
    outcome = attacked_class["attacks"][name]
    for how in ("shell", "python"):
        output = outcome[how]["output"]
        for secret in secrets_not_in_output:
            assert secret not in output, (name, how, output[:600])
        assert not outcome[how]["ok"], (name, how, output[:600])
    assert not attacked_class["effects"].get(name), (name, attacked_class["effects"][name])


def test_mallory_cannot_pre_create_the_course_folders(attacked_class):
    _refused(attacked_class, "pre-create the course's folders")


def test_mallory_cannot_pre_create_another_course(attacked_class):
    _refused(attacked_class, "pre-create a course to come")


def test_mallory_cannot_list_the_submissions(attacked_class):
    name = attacked_class["targets"]["submission"].name
    _refused(attacked_class, "list the submissions", secrets_not_in_output=[name])


def test_mallory_cannot_find_alices_submission_in_her_home(attacked_class):
    name = attacked_class["targets"]["submission"].name
    _refused(attacked_class, "find alice's submission in her home",
             secrets_not_in_output=[name.rsplit("+", 1)[0]])


def test_mallory_cannot_read_alices_work(attacked_class):
    _refused(attacked_class, "read alice's work in her home", secrets_not_in_output=[SECRET])


def test_mallory_cannot_read_alices_submission(attacked_class):
    _refused(attacked_class, "read alice's submission (its name leaked)",
             secrets_not_in_output=[SECRET])


def test_mallory_cannot_change_alices_submission(attacked_class):
    _refused(attacked_class, "change alice's submission (its name leaked)")


def test_mallory_cannot_delete_alices_submission(attacked_class):
    _refused(attacked_class, "delete alice's submission (its name leaked)")


def test_mallory_cannot_submit_in_alices_name(attacked_class):
    steps = attacked_class["steps"]
    assert steps["forged in alice's name"], "creating a folder in inbound/ must work (submitting)"
    collected = steps["alice's collected work"]
    assert "mallory-mark" not in collected, "mallory's forgery was collected as alice's"
    assert SECRET in collected, "alice's own submission was not collected"


def test_mallory_cannot_write_into_outbound(attacked_class):
    _refused(attacked_class, "write into outbound")


def test_mallory_cannot_read_the_gradebook(attacked_class):
    _refused(attacked_class, "read gradebook.db", secrets_not_in_output=["SQLite format"])


def test_mallory_cannot_read_the_solutions(attacked_class):
    _refused(attacked_class, "read solutions/", secrets_not_in_output=["BEGIN SOLUTION"])


def test_mallory_cannot_list_the_graders_course_folder(attacked_class):
    _refused(attacked_class, "list the grader's course folder",
             secrets_not_in_output=["nbgrader_config.py"])


def test_mallory_cannot_use_the_formgrader(attacked_class):
    statuses = attacked_class["steps"]["mallory at the formgrader"]
    assert all(status in (302, 403) for status in statuses.values()), statuses


def test_mallory_cannot_list_the_feedback(attacked_class):
    _refused(attacked_class, "list the released feedback",
             secrets_not_in_output=[attacked_class["targets"]["feedback"].stem])


def test_mallory_cannot_read_alices_feedback(attacked_class):
    assert attacked_class["steps"]["alice's feedback released"]
    _refused(attacked_class, "read alice's feedback", secrets_not_in_output=[SECRET])


def test_mallory_cannot_change_alices_feedback(attacked_class):
    _refused(attacked_class, "change alice's feedback (its name leaked)")


def test_mallory_cannot_delete_alices_feedback(attacked_class):
    _refused(attacked_class, "delete alice's feedback (its name leaked)")


def test_mallory_cannot_swap_the_course_folder(attacked_class):
    _refused(attacked_class, "swap the course's exchange folder")
