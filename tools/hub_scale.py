"""A class of N real students on one server, measured: ``sudo python tools/hub_scale.py``.

Run by hand (root; not in CI): the set-up of tests/deploy/test_hub_accounts.py (real Unix accounts,
JupyterHub's LocalProcessSpawner, a real configurable-http-proxy on 127.0.0.1, the exchange
prepared by deploy/jupyterhub/setup_exchange.sh), with N students (default 30):

1. the hub's memory before any server, every student's server started through the hub's API
   at once, and the time from the request to a ready server, per student;
2. all students driven concurrently through their own servers, with their own tokens: fetch
   the assignment (Assignment List API), open the notebook and write an answer (contents
   API), run the notebook's tests in a kernel of their server (kernel websocket: every code
   cell in order, as Run All does), submit;
3. the instructor collects through the course service's Formgrader, the class is graded as
   the grader account in the course folder with ``python -m barrier_course.grading.class_grading
   ASSIGNMENT --jobs J --report`` (what the README tells instructors to run in the service's
   terminal), and the report is shown in the course service's JupyterLab: a screenshot with
   headless Chromium (--screenshot PATH).

Prints and writes (--out, JSON) the figures: hub RSS before / after and per user, each
server's RSS, start times, drive times, grading time, with the machine's load (uptime)
before and after. Every account, process and folder it made is removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "deploy"))   # test_hub_accounts, test_jupyterhub

from course_testing import ASSIGNMENT, copy_course  # noqa: E402
from hub_accounts import (Accounts, private_base, root_problem, taken,  # noqa: E402
                          world_readable_python)
from test_hub_accounts import (COURSE_ID, GRADER, INSTRUCTOR, NOTEBOOK, STUB,  # noqa: E402
                               _hub_config, _machine_config, _prepare_exchange)
from test_jupyterhub import Hub, _missing, _ok  # noqa: E402

#: what the students write: most right, some with the classic mistakes
ANSWERS = [
    "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();",
    "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();",
    "if (i < n) {\n    tile[t] = in[i];\n    __syncthreads();\n}",
    "tile[t] = (i < n) ? in[i] : 0.0f;",
    "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();",
    "tile[t] = in[i];\n__syncthreads();",
]


def rss_kb(pids) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def tree(pid: int) -> list[int]:
    """pid and its descendants (from /proc)."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int(Path(entry, "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def pids_of(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def answered(nb: dict, code: str) -> dict:
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        m = STUB.search(src)
        if m:
            lines = "\n".join(m["indent"] + line for line in code.splitlines())
            cell["source"] = src[: m.start()] + lines + src[m.end():]
            return nb
    raise SystemExit("the released notebook has no stub line")


async def run_cells(hub_url: str, server: str, token: str, cells: list, timeout: float) -> dict:
    """Every code cell in a fresh kernel of the student's server; count errors."""
    import requests
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    headers = {"Authorization": f"token {token}"}
    r = requests.post(f"{hub_url}{server}/api/kernels", headers=headers, json={"name": "python3"},
                      timeout=120)
    r.raise_for_status()
    kernel = r.json()["id"]
    ws_url = hub_url.replace("http", "ws", 1) + f"{server}/api/kernels/{kernel}/channels"
    ws = await websocket_connect(HTTPRequest(ws_url, headers=headers), max_message_size=1 << 26)
    errors = 0
    try:
        for code in cells:
            msg_id = uuid.uuid4().hex
            await ws.write_message(json.dumps({
                "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "",
                           "session": "scale", "version": "5.3"},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": code, "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False}}))
            while True:
                raw = await asyncio.wait_for(ws.read_message(), timeout)
                if raw is None:
                    raise RuntimeError("kernel websocket closed")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "error":
                    errors += 1
                if msg["msg_type"] == "execute_reply":
                    break
    finally:
        ws.close()
        requests.delete(f"{hub_url}{server}/api/kernels/{kernel}", headers=headers, timeout=60)
    return {"cells": len(cells), "errors": errors}


def drive(hub: Hub, student: str, code: str, timeout: float) -> dict:
    """One student's session through their server: fetch, answer, run the tests, submit."""
    server = f"/user/{student}"
    form = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
    t0 = time.monotonic()
    _ok(hub.request("POST", f"{server}/assignments/fetch", data=form, user=student), "fetch")
    t_fetch = time.monotonic() - t0
    path = f"{server}/api/contents/{COURSE_ID}/{ASSIGNMENT}/{NOTEBOOK}"
    r = hub.request("GET", path, user=student)
    assert r.status_code == 200, (r.status_code, r.text[:300])
    nb = answered(r.json()["content"], code)
    r = hub.request("PUT", path, user=student, json={"type": "notebook", "format": "json",
                                                     "content": nb})
    assert r.status_code == 200, (r.status_code, r.text[:300])
    t1 = time.monotonic()
    cells = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
             for c in nb["cells"] if c["cell_type"] == "code"]
    # the kernel starts in the notebook's folder, as JupyterLab starts it
    cells.insert(0, f"import os; os.chdir(os.path.expanduser('~/{COURSE_ID}/{ASSIGNMENT}'))")
    ran = asyncio.run(run_cells(hub.url, server, hub.user_tokens[student], cells, timeout))
    t_tests = time.monotonic() - t1
    t2 = time.monotonic()
    _ok(hub.request("POST", f"{server}/assignments/submit", data=form, user=student), "submit")
    return {"fetch_s": t_fetch, "tests_s": t_tests, "submit_s": time.monotonic() - t2,
            "total_s": time.monotonic() - t0, **ran}


def start_all(hub: Hub, users: list, timeout: float) -> dict:
    """Ask the hub for every server at once; seconds from the request to ready, per user."""
    asked = {}
    for user in users:
        r = hub.request("POST", f"/hub/api/users/{user}/server")
        assert r.status_code in (201, 202), (r.status_code, r.text)
        asked[user] = time.monotonic()
    ready = {}
    deadline = time.monotonic() + timeout
    while len(ready) < len(users) and time.monotonic() < deadline:
        r = hub.request("GET", "/hub/api/users")
        for u in r.json():
            if u["name"] in asked and u["name"] not in ready and \
                    u["servers"].get("", {}).get("ready"):
                ready[u["name"]] = time.monotonic() - asked[u["name"]]
        time.sleep(0.5)
    missing = sorted(set(users) - set(ready))
    assert not missing, f"servers not ready after {timeout} s: {missing}\n{hub.log_tail()}"
    for user in users:
        r = hub.request("POST", f"/hub/api/users/{user}/tokens", json={"note": "scale"})
        hub.user_tokens[user] = r.json()["token"]
    return ready


def screenshot(hub: Hub, path: Path) -> None:
    """The class report in the course service's JupyterLab, as the instructor sees it."""
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    url = (f"{hub.url}/services/{COURSE_ID}/lab/tree/class_report/{ASSIGNMENT}.html")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(f"{hub.url}/hub/login", timeout=120_000)
            page.fill("input[name=username]", INSTRUCTOR)
            page.fill("input[name=password]", "any")
            page.click("input[type=submit], button[type=submit]")
            page.wait_for_url("**/user/**", timeout=180_000)
            page.goto(url, timeout=180_000)
            page.wait_for_selector("iframe", timeout=180_000)
            frame = page.frame_locator("iframe").first
            frame.locator("h1").wait_for(timeout=120_000)
            time.sleep(2)
            page.screenshot(path=str(path))
        finally:
            browser.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2, help="grading jobs (class_grading --jobs)")
    parser.add_argument("--out", default="hub_scale.json", help="the figures, as JSON")
    parser.add_argument("--screenshot", help="PNG of the class report in JupyterLab")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args(argv)
    why = root_problem() or _missing()
    if why:
        raise SystemExit(f"hub_scale: {why}")
    students = [f"scale{k:03d}" for k in range(1, args.students + 1)]
    names = [INSTRUCTOR, GRADER, *students]
    if taken(names):
        raise SystemExit(f"hub_scale: accounts {taken(names)} exist already; not touching them")
    figures = {"students": args.students, "uptime_before": uptime(), "cpus": os.cpu_count()}
    base = private_base("gpu-barriers-scale-")
    accounts = hub = None
    try:
        accounts = Accounts(names, base)
        python, how = world_readable_python(accounts, students[0], base)
        if python is None:
            raise SystemExit(f"hub_scale: {how}")
        figures["python"] = how
        exchange = base / "srv" / "nbgrader" / "exchange"
        course_folder = accounts.home(GRADER) / "course"
        copy_course(course_folder)
        accounts.chown_tree(course_folder, GRADER)
        _machine_config(base, exchange, "hardened")
        _prepare_exchange(accounts, exchange, "hardened")
        hub = Hub(base, lambda ports, token, proxy: _hub_config(
            base, accounts, ports, token, proxy, students=students, setup="hardened",
            startup_s=int(args.timeout)))
        (base / "hub").chmod(0o700)
        service = f"/services/{COURSE_ID}"
        hub.wait("the hub", lambda: hub.request("GET", "/hub/api/").status_code == 200, 300)
        hub.wait("the course service", lambda: hub.request(
            "GET", f"{service}/formgrader/api/status").status_code == 200, 300)
        hub_pids = tree(hub.proc.pid)
        own = [p for p in hub_pids if os.stat(f"/proc/{p}").st_uid == 0]
        figures["hub_rss_mb_before"] = rss_kb(own) / 1024
        start = time.monotonic()
        figures["start_s"] = start_all(hub, [INSTRUCTOR, *students], args.timeout)
        figures["all_started_s"] = time.monotonic() - start
        own = [p for p in tree(hub.proc.pid) if os.stat(f"/proc/{p}").st_uid == 0]
        figures["hub_rss_mb_after"] = rss_kb(own) / 1024
        figures["server_rss_mb"] = {s: rss_kb(pids_of(accounts.pw(s).pw_uid)) / 1024
                                    for s in students}
        fg = f"{service}/formgrader/api/assignment/{ASSIGNMENT}"
        _ok(hub.request("POST", f"{fg}/assign", user=INSTRUCTOR), "generate")
        _ok(hub.request("POST", f"{fg}/release", user=INSTRUCTOR), "release")

        t0 = time.monotonic()
        with ThreadPoolExecutor(max_workers=len(students)) as pool:
            futures = {s: pool.submit(drive, hub, s, ANSWERS[k % len(ANSWERS)], args.timeout)
                       for k, s in enumerate(students)}
            figures["drive"] = {s: f.result() for s, f in futures.items()}
        figures["drive_wall_s"] = time.monotonic() - t0
        figures["server_rss_mb_after_tests"] = {s: rss_kb(pids_of(accounts.pw(s).pw_uid)) / 1024
                                                for s in students}

        t0 = time.monotonic()
        _ok(hub.request("POST", f"{fg}/collect", user=INSTRUCTOR), "collect")
        figures["collect_s"] = time.monotonic() - t0
        t0 = time.monotonic()
        grading = accounts.shell(GRADER, f"cd {course_folder} && PATH={Path(python).parent}:"
                                 f"$PATH LD_LIBRARY_PATH={accounts.python_env.get('LD_LIBRARY_PATH', '')} "
                                 f"{python} -m barrier_course.grading.class_grading "
                                 f"{ASSIGNMENT} --jobs {args.jobs} --report", timeout=7200)
        figures["grading_s"] = time.monotonic() - t0
        figures["grading_output"] = grading.stdout[-4000:] + grading.stderr[-2000:]
        assert grading.returncode == 0, figures["grading_output"]
        submissions = _ok(hub.request("GET", f"{service}/formgrader/api/submissions/{ASSIGNMENT}",
                                      user=INSTRUCTOR), "submissions")
        figures["scores"] = {s["student"]: s["score"] for s in submissions}
        report = course_folder / "class_report" / f"{ASSIGNMENT}.html"
        figures["report_written"] = report.is_file()
        if args.screenshot and report.is_file():
            shutil.copy(report, Path(args.screenshot).with_suffix(".html"))
            try:
                screenshot(hub, Path(args.screenshot).resolve())
            except Exception as exc:  # the figures above are kept all the same
                figures["screenshot_error"] = f"{type(exc).__name__}: {exc}"[:2000]
        figures["uptime_after"] = uptime()
    except BaseException as exc:  # the figures so far are written all the same
        figures["error"] = f"{type(exc).__name__}: {exc}"[-4000:]
        raise
    finally:
        if hub is not None:
            hub.stop()
        if accounts is not None:
            accounts.remove()
        shutil.rmtree(base, ignore_errors=True)
        summary = summarise(figures)
        Path(args.out).write_text(json.dumps({"summary": summary, "figures": figures}, indent=1,
                                             default=str))
        print(json.dumps(summary, indent=1))
    return 0


def summarise(f: dict) -> dict:
    starts = sorted(f.get("start_s", {}).values())
    rss = list(f.get("server_rss_mb_after_tests", {}).values())
    drive = f.get("drive", {})
    n = f["students"]
    out = {"students": n, "uptime_before": f["uptime_before"], "uptime_after": f.get("uptime_after")}
    if starts:
        out.update(start_median_s=statistics.median(starts), start_max_s=starts[-1],
                   all_started_s=f["all_started_s"])
    if "hub_rss_mb_after" in f:
        out.update(hub_rss_mb_before=round(f["hub_rss_mb_before"], 1),
                   hub_rss_mb_after=round(f["hub_rss_mb_after"], 1),
                   hub_mb_per_user=round((f["hub_rss_mb_after"] - f["hub_rss_mb_before"]) / (n + 1), 2))
    if rss:
        out.update(server_rss_mb_median=round(statistics.median(rss), 1),
                   server_rss_mb_max=round(max(rss), 1))
    if drive:
        out.update(drive_wall_s=round(f["drive_wall_s"], 1),
                   tests_s_median=round(statistics.median(d["tests_s"] for d in drive.values()), 1),
                   session_s_max=round(max(d["total_s"] for d in drive.values()), 1))
    for key in ("collect_s", "grading_s"):
        if key in f:
            out[key] = round(f[key], 1)
    if "scores" in f:
        out["scores"] = dict(sorted(__import__("collections").Counter(f["scores"].values()).items()))
    return out


if __name__ == "__main__":
    sys.exit(main())
