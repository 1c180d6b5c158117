"""The course on a shared JupyterHub: deploy/jupyterhub/ proved on a local test hub.

A real JupyterHub (from PyPI) behind a real configurable-http-proxy (from npm), all on
127.0.0.1, configured by deploy/jupyterhub/nbgrader_hub.py's add_courses exactly as the
workshop's jupyterhub_config.py does, and deploy/jupyterhub/nbgrader_config.py as the
machine-wide nbgrader config (only its exchange path changed to a temporary folder). What
differs from a production hub is only what a test cannot have: the DummyAuthenticator and
the SimpleLocalProcessSpawner (every user is the same OS account, homes in a temporary
folder, so collect's owner check is off), and the course service runs as that account too.
tests/deploy/test_hub_accounts.py runs the same class with real accounts, as root.

Through the proxy, as each user would: alice logs in on the login page and lands in her
JupyterLab, someone not on the class list is refused; the instructor generates and releases exercise 1 from
the Formgrader of the course service (/services/gpu-barriers/); alice and bob (students,
group nbgrader-gpu-barriers) see the course in their Assignment List, fetch it, write an
answer (alice right, bob without the barrier) and submit; a student cannot open the
Formgrader; the instructor collects, autogrades each submission and releases feedback;
both students fetch their feedback. Scores read back from the Formgrader: alice 10, bob less.
Everything the test started is stopped at the end.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from course_testing import ASSIGNMENT, ROOT, copy_course, tool_env

pytestmark = [pytest.mark.slow, pytest.mark.hub]

COURSE_ID = "gpu-barriers"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
DEPLOY = ROOT / "deploy" / "jupyterhub"
#: where .ci/run (npm install --prefix .node configurable-http-proxy) puts the proxy
LOCAL_PROXY = ROOT / ".node" / "node_modules" / ".bin" / "configurable-http-proxy"
STUB = re.compile(r'^(?P<indent>[ \t]*)__simcore_todo\(.*\);[ \t]*$', re.M)
ANSWERS = {
    "alice": "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();",  # right
    "bob": "tile[t] = (i < n) ? in[i] : 0.0f;",  # no barrier
}
INSTRUCTOR = "instructor"
STARTUP_S = 180


def _proxy_command() -> str | None:
    found = os.environ.get("CONFIGURABLE_HTTP_PROXY")
    if found:
        return found
    if LOCAL_PROXY.exists():
        return str(LOCAL_PROXY)
    return shutil.which("configurable-http-proxy")


def _missing() -> str | None:
    try:
        import jupyterhub  # noqa: F401
        import requests  # noqa: F401
    except ImportError as exc:
        return (f"jupyterhub is not installed ({exc}): pip install -e '.[hub]' "
                "(.ci/run installs it)")
    if shutil.which("node") is None:
        return "node is not installed (configurable-http-proxy needs Node.js; apt-get install nodejs npm)"
    if _proxy_command() is None:
        return ("configurable-http-proxy not found: npm install --prefix .node "
                "configurable-http-proxy (.ci/run does), or set CONFIGURABLE_HTTP_PROXY")
    return None


def _free_ports(count: int) -> list[int]:
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def hub_config(state: Path, ports: dict, token: str, proxy: str, *, course: dict,
               machine_env: dict, spawner: str, run_as_grader: bool,
               startup_s: int = STARTUP_S, service_setup: str = "") -> str:
    """A test hub's config (shared by this test and test_hub_accounts): on 127.0.0.1 behind
    `proxy`, its state in `state`/hub, the workshop's add_courses for `course` (as
    deploy/jupyterhub/jupyterhub_config.py applies it), and a `test-driver` service with
    `token` for the test's own API calls. `spawner`: the lines that choose how a user's
    server starts (a test hub cannot log in or run as OS accounts the way production does);
    `service_setup`: lines run for each course service after its environment is set."""
    python = next(iter(course.values()))["command"]     # the users' servers run what the course service runs
    return f"""
import sys
sys.path.insert(0, {str(DEPLOY)!r})
from nbgrader_hub import add_courses

c = get_config()
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {ports["public"]}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {ports["hub"]}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports["proxy_api"]}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {str(state / "hub" / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///" + {str(state / "hub" / "jupyterhub.sqlite")!r}
c.JupyterHub.cookie_secret_file = {str(state / "hub" / "cookie_secret")!r}

c.JupyterHub.authenticator_class = "dummy"   # logging in is not what the tests are about
{spawner}
c.Spawner.cmd = {python!r}
c.Spawner.environment = {machine_env!r}
c.Spawner.start_timeout = {startup_s}
c.Spawner.http_timeout = {startup_s}
c.Spawner.default_url = "/lab"

# the workshop's configuration, as deploy/jupyterhub/jupyterhub_config.py applies it
add_courses(c, {course!r}, run_as_grader={run_as_grader!r})
for service in c.JupyterHub.services:
    service["environment"].update({machine_env!r})
{service_setup}
# the test itself talks to the hub's API as a service
c.JupyterHub.services = list(c.JupyterHub.services) + [{{"name": "test-driver", "api_token": {token!r}}}]
c.JupyterHub.load_roles = list(c.JupyterHub.load_roles) + [{{
    "name": "test-driver", "services": ["test-driver"],
    "scopes": ["admin:users", "admin:servers", "tokens", "list:services", "read:services",
               "access:services", "access:servers"],
}}]
"""


def _hub_config(tmp: Path, ports: dict, token: str, proxy: str) -> str:
    """This test's hub: every user is this OS account (SimpleLocalProcessSpawner), homes in `tmp`."""
    python = [sys.executable, "-m", "jupyterhub.singleuser"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        python.append("--allow-root")  # CI runs as root; a real hub's users never are
    course = {COURSE_ID: {"instructors": [INSTRUCTOR], "students": sorted(ANSWERS),
                          "grader": f"grader-{COURSE_ID}",
                          "directory": str(tmp / "course"), "port": ports["service"],
                          "command": python}}
    spawner = ('c.JupyterHub.spawner_class = "simple"\n'
               f'c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp / "homes")!r} + "/{{username}}"')
    home = f'    service["environment"]["HOME"] = {str(tmp / "homes" / "grader")!r}'
    return hub_config(tmp, ports, token, proxy, course=course, spawner=spawner,
                      machine_env={"JUPYTER_CONFIG_PATH": str(tmp / "etc-jupyter")},
                      run_as_grader=False, service_setup=home)


class Hub:
    """The running test hub, and requests to it as a user, through the proxy."""

    def __init__(self, tmp: Path, make_config=None):
        """``make_config(ports, token, proxy)``: the config's text (default: the dummy hub's)."""
        import requests

        self.requests = requests
        self.tmp = tmp
        self.token = os.urandom(16).hex()
        self.ports = ports = dict(zip(("public", "hub", "proxy_api", "service"), _free_ports(4)))
        self.url = f"http://127.0.0.1:{ports['public']}"
        (tmp / "hub").mkdir()
        if make_config is None:
            (tmp / "homes" / "grader").mkdir(parents=True)
            text = _hub_config(tmp, ports, self.token, _proxy_command())
        else:
            text = make_config(ports, self.token, _proxy_command())
        config = tmp / "hub" / "jupyterhub_config.py"
        config.write_text(text)
        self.log_path = tmp / "hub" / "hub.log"
        self.log = open(self.log_path, "w")
        env = tool_env()
        env.pop("JUPYTERHUB_API_TOKEN", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                                     cwd=tmp / "hub", env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.user_tokens: dict[str, str] = {}

    def log_tail(self, chars: int = 6000) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-chars:]

    def request(self, method: str, path: str, user: str | None = None, **kw):
        token = self.user_tokens[user] if user else self.token
        headers = {"Authorization": f"token {token}"}
        return self.requests.request(method, self.url + path, headers=headers,
                                     allow_redirects=False, timeout=600, **kw)

    def wait(self, what: str, check, timeout: float = STARTUP_S):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the hub exited ({self.proc.returncode}) while waiting "
                                     f"for {what}:\n{self.log_tail()}")
            try:
                if check():
                    return
            except self.requests.RequestException:
                pass
            time.sleep(0.5)
        raise AssertionError(f"timed out waiting for {what}:\n{self.log_tail()}")

    def start_server(self, user: str) -> None:
        r = self.request("POST", f"/hub/api/users/{user}/server")
        assert r.status_code in (201, 202), (r.status_code, r.text)
        self.wait(f"{user}'s server", lambda: self.request(
            "GET", f"/hub/api/users/{user}").json()["servers"].get("", {}).get("ready"))
        r = self.request("POST", f"/hub/api/users/{user}/tokens", json={"note": "test"})
        assert r.status_code == 201, (r.status_code, r.text)
        self.user_tokens[user] = r.json()["token"]

    def browser_login(self, user: str):
        """Log in on the hub's login page as a browser does; return the last response."""
        browser = self.requests.Session()
        page = browser.get(self.url + "/hub/login", timeout=60)
        assert page.status_code == 200, (page.status_code, page.text[:500])
        form = {"username": user, "password": "any", "_xsrf": browser.cookies.get("_xsrf", "")}
        # follows the redirects: the user's server, then its OAuth round trip with the hub
        return browser.post(self.url + "/hub/login?next=/hub/", data=form, timeout=120)

    def stop(self) -> None:
        """SIGTERM: the hub stops the servers, the course service and the proxy; then make sure."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        try:  # anything left in the hub's session (user servers, the course service) is ended
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(timeout=30)
        # the proxy runs in a session of its own; a hub that crashed leaves it behind
        pid_file = self.tmp / "hub" / "proxy.pid"
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
        self.log.close()


def _answer(path: Path, code: str) -> None:
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        m = STUB.search(src)
        if m:
            lines = "\n".join(m["indent"] + line for line in code.splitlines())
            cell["source"] = src[: m.start()] + lines + src[m.end():]
            break
    else:
        raise AssertionError(f"{path} has no stub line to replace")
    path.write_text(json.dumps(nb, indent=1))


def _ok(response, what: str):
    """The JSON body of a successful Formgrader / Assignment List call (nbgrader's log dropped)."""
    assert response.status_code == 200, (what, response.status_code, response.text[:2000])
    body = response.json()
    if isinstance(body, dict) and "success" in body:
        if not body["success"]:  # raised, not asserted: pytest would cut nbgrader's traceback
            raise AssertionError(f"{what} failed:\n{str(body.get('error', ''))[-4000:]}\n"
                                 f"log:\n{str(body.get('log', ''))[-2000:]}")
        body.pop("log", None)
    return body


@pytest.fixture(scope="module")
def class_on_a_hub(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("hub")
    copy_course(tmp / "course")
    exchange = tmp / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    machine = (DEPLOY / "nbgrader_config.py").read_text()
    default = 'EXCHANGE_ROOT = "/srv/nbgrader/exchange"'
    assert machine.count(default) == 1, "deploy/jupyterhub/nbgrader_config.py changed its exchange line"
    (tmp / "etc-jupyter").mkdir()
    # one OS account plays every user here, so no submission is owned by its student's
    # account: collect's owner check (barrier_course/nbgrader/shared_exchange.py) is off, as nbgrader's is
    (tmp / "etc-jupyter" / "nbgrader_config.py").write_text(
        machine.replace(default, f"EXCHANGE_ROOT = {str(exchange)!r}")
        + "\nc.ExchangeCollectPrepared.owner_names = []\n")

    hub = Hub(tmp)
    steps = {}
    try:
        hub.wait("the hub", lambda: hub.request("GET", "/hub/api/").status_code == 200)
        service = f"/services/{COURSE_ID}"
        hub.wait("the course service", lambda: hub.request(
            "GET", f"{service}/formgrader/api/status").status_code == 200)
        for user in (INSTRUCTOR, *ANSWERS):
            hub.start_server(user)
        landing = hub.browser_login("alice")
        steps["alice logs in"] = (landing.status_code, landing.url.replace(hub.url, ""))
        refused = hub.browser_login("mallory")  # not on the class list
        steps["mallory logs in"] = (refused.status_code, refused.url.replace(hub.url, ""))

        # a student cannot open the Formgrader; the instructor can
        steps["student formgrader status"] = hub.request(
            "GET", f"{service}/formgrader/api/assignments", user="alice").status_code
        fg = f"{service}/formgrader/api/assignment/{ASSIGNMENT}"
        _ok(hub.request("GET", f"{service}/formgrader/api/assignments", user=INSTRUCTOR),
            "the Formgrader's assignment list")
        steps["generate"] = _ok(hub.request("POST", f"{fg}/assign", user=INSTRUCTOR), "generate")
        steps["release"] = _ok(hub.request("POST", f"{fg}/release", user=INSTRUCTOR), "release")

        for student, code in ANSWERS.items():
            server = f"/user/{student}"
            steps[f"courses {student}"] = _ok(hub.request("GET", f"{server}/courses",
                                                          user=student), "course list")
            listed = _ok(hub.request("GET", f"{server}/assignments",
                                     params={"course_id": COURSE_ID}, user=student), "list")
            steps[f"listed {student}"] = [(a["course_id"], a["assignment_id"], a["status"])
                                          for a in listed["value"]]
            form = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
            _ok(hub.request("POST", f"{server}/assignments/fetch", data=form, user=student),
                "fetch")
            _answer(tmp / "homes" / student / COURSE_ID / ASSIGNMENT / NOTEBOOK, code)
            _ok(hub.request("POST", f"{server}/assignments/submit", data=form, user=student),
                "submit")

        steps["collect"] = _ok(hub.request("POST", f"{fg}/collect", user=INSTRUCTOR), "collect")
        for student in ANSWERS:
            steps[f"autograde {student}"] = _ok(hub.request(
                "POST", f"{service}/formgrader/api/submission/{ASSIGNMENT}/{student}/autograde",
                user=INSTRUCTOR), f"autograde {student}")
        _ok(hub.request("POST", f"{fg}/generate_feedback", user=INSTRUCTOR), "feedback")
        _ok(hub.request("POST", f"{fg}/release_feedback", user=INSTRUCTOR), "release feedback")
        for student in ANSWERS:
            form = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
            _ok(hub.request("POST", f"/user/{student}/assignments/fetch_feedback", data=form,
                            user=student), "fetch feedback")
        submissions = _ok(hub.request("GET", f"{service}/formgrader/api/submissions/{ASSIGNMENT}",
                                      user=INSTRUCTOR), "submissions")
        steps["scores"] = {s["student"]: s["score"] for s in submissions}
        print("\nJupyterHub round trip:", json.dumps(steps, default=str)[:3000])
        yield {"tmp": tmp, "steps": steps, "log": hub.log_tail(200_000)}
    finally:
        hub.stop()
        # nothing of the test is still listening on the ports it used
        url = hub.url
        try:
            hub.requests.get(url + "/hub/api/", timeout=2)
            still_up = True
        except hub.requests.RequestException:
            still_up = False
        assert not still_up, f"{url} still answers after the hub was stopped"


def test_students_see_the_course_through_hub_groups(class_on_a_hub):
    steps = class_on_a_hub["steps"]
    for student in ANSWERS:
        assert steps[f"courses {student}"]["value"] == [COURSE_ID], steps[f"courses {student}"]
        assert (COURSE_ID, ASSIGNMENT, "released") in steps[f"listed {student}"]


def test_a_student_logs_in_and_lands_in_jupyterlab(class_on_a_hub):
    status, path = class_on_a_hub["steps"]["alice logs in"]
    assert status == 200 and path.startswith("/user/alice/lab"), (status, path)
    status, path = class_on_a_hub["steps"]["mallory logs in"]
    assert status == 403 and "/user/" not in path, (status, path)


def test_a_student_cannot_open_the_formgrader(class_on_a_hub):
    assert class_on_a_hub["steps"]["student formgrader status"] in (302, 403), \
        class_on_a_hub["steps"]["student formgrader status"]


def test_release_goes_to_the_shared_exchange(class_on_a_hub):
    tmp = class_on_a_hub["tmp"]
    assert (tmp / "exchange" / COURSE_ID / "outbound" / ASSIGNMENT / NOTEBOOK).is_file()
    assert not (tmp / "course" / "exchange").exists(), \
        "the course folder made its own exchange although the machine names a shared one"


def test_students_work_lands_in_their_course_folder_and_is_collected(class_on_a_hub):
    tmp = class_on_a_hub["tmp"]
    for student in ANSWERS:
        assert (tmp / "homes" / student / COURSE_ID / ASSIGNMENT / NOTEBOOK).is_file()
        # collected under the hub name, not the OS account every test user shares
        assert (tmp / "course" / "submitted" / student / ASSIGNMENT / NOTEBOOK).is_file()


def test_instructor_grades_the_class(class_on_a_hub):
    scores = class_on_a_hub["steps"]["scores"]
    assert scores["alice"] == 10.0, scores
    assert scores["bob"] < 10.0, scores


def test_students_fetch_feedback(class_on_a_hub):
    tmp = class_on_a_hub["tmp"]
    for student in ANSWERS:
        pages = list((tmp / "homes" / student / COURSE_ID / ASSIGNMENT / "feedback").glob(
            f"*/{ASSIGNMENT}.html"))
        assert len(pages) == 1, (student, pages)
        assert "BEGIN HIDDEN TESTS" not in pages[0].read_text()
