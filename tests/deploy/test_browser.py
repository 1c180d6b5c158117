"""The course as a student meets it: JupyterLab in a real (headless Chromium) browser.

One JupyterLab server from this environment, on a free localhost port, with its own
settings, workspace and runtime folders and a throw-away copy of course/ (so that the
browser's autosave never writes into the checkout). For every lesson the test opens the
notebook, runs all cells, and checks in the page that

* no cell shows an error (the notebook model's outputs, as JupyterLab holds them);
* widgets render as widgets (``.jupyter-widgets`` elements), never as their ``VBox(...)``
  text fallback or "Error displaying widget";
* operating the first control of each widget (choose another dropdown entry, move a slider,
  click a checkbox) changes what the widget shows;

and writes screenshots at a narrow (800 px) and a wide (1600 px) window into
``$BROWSER_SCREENSHOTS`` (default: pytest's tmp folder), for a human to look at.

Needs the Debian ``chromium`` (or ``$CHROMIUM``) and the ``playwright`` package (the test
extra). Playwright drives the system browser; it never downloads one. Skips, saying which is
missing, otherwise.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from course_testing import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
LESSONS = sorted(p.name for p in (ROOT / "course").glob("[0-9][0-9]_*.ipynb"))
NARROW, WIDE = (800, 900), (1600, 1000)
TOKEN = "browser-test"
# what the stand-in for the checkout holds (the lab fixture): tracked files a student must never change
TRACKED = ("nbgrader_config.py", "course", "exercises", "solutions")


def _need_browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; or set "
                    "$CHROMIUM): the browser test cannot run")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the playwright package is missing (pip install -e '.[test]')")


def _tasks_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("course_tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A running JupyterLab on a stand-in for the checkout; yields (base_url, work_dir).

    ``work`` holds copies of the tracked course files (course/, exercises/, solutions/,
    nbgrader_config.py) and the student's working copy my-course/, made as ``tasks.py course``
    makes it (kernel metadata of this environment, so that the notebooks open unmodified):
    the browser's autosave never writes into the real checkout, and a test can check that the
    stand-in's tracked files stay as they were."""
    _need_browser()
    from course_testing import copy_course

    base = tmp_path_factory.mktemp("lab")
    work = copy_course(base / "work", parts=TRACKED)
    tasks = _tasks_module()
    tasks.sync_course(work / "my-course", metadata=tasks.kernel_metadata(Path(sys.executable)))
    port = _free_port()
    env = dict(os.environ)
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(base / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTER_CONFIG_DIR=str(base / "config"),          # no user-level config
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    env.pop("SIMCORE_BACKEND", None)
    # The course's JupyterLab settings as `tasks.py course` gives them to a student.
    app_settings = base / "app-settings"
    app_settings.mkdir()
    shutil.copy(ROOT / "lab-settings" / "overrides.json", app_settings / "overrides.json")
    shutil.copy(ROOT / "lab-settings" / "student-page_config.json",
                app_settings / "page_config.json")
    extra = [f"--LabApp.app_settings_dir={app_settings}",
             f"--LabApp.extra_labextensions_path={tasks.LAB_EXTENSIONS}",
             *[f"--ServerApp.jpserver_extensions={name}=False"
               for name in tasks.INSTRUCTOR_SERVER_EXTENSIONS],
             f"--ServerApp.contents_manager_class={tasks.STUDENT_CONTENTS}"]
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={TOKEN}",
           f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
           "--ServerApp.disable_check_xsrf=False", *extra]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(base / "jupyter.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    log.flush()
                    raise AssertionError("JupyterLab did not start:\n"
                                         + (base / "jupyter.log").read_text()[-4000:])
                time.sleep(0.5)
        yield url, work
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                      headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    where = os.environ.get("BROWSER_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


# --- in the page ---------------------------------------------------------------------------

OPEN = """async (path) => {
    const app = window.jupyterapp;
    await app.started; await app.restored;
    const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    await panel.context.ready;
    await panel.sessionContext.ready;
    app.shell.activateById(panel.id);
    return panel.id;
}"""

RUN_ALL = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('notebook:run-all-cells');
}"""

DIRTY = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"

# What a student must not be shown (lab-settings/): the news pop-up, the instructor's panel,
# nbgrader's Validate button on a lesson.
CLUTTER = """() => {
    const text = document.body.innerText;
    return {
        news: text.includes('official Jupyter news'),
        createAssignment: [...document.querySelectorAll('.lm-TabBar-tabLabel, .jp-SideBar .lm-TabBar-tab')]
            .some(e => (e.innerText || e.title || '').includes('Create Assignment')),
        validate: [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar *')]
            .some(e => e.childElementCount === 0 && (e.textContent || '').trim() === 'Validate'),
    };
}"""

CELL_STATE = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const model = panel.content.model;
    const cells = [];
    for (let i = 0; i < model.cells.length; i++) {
        const c = model.cells.get(i);
        if (c.type !== 'code') continue;
        cells.push({index: i, count: c.executionCount, outputs: c.outputs.toJSON()});
    }
    const status = panel.sessionContext.session?.kernel?.status;
    return {cells, status, dirty: panel.context.model.dirty};
}"""

# The rendered outputs of the current notebook, with how each widget's view reads.
RENDERED = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const outs = [...panel.node.querySelectorAll('.jp-OutputArea-output')];
    return {
        texts: outs.map(o => o.innerText.slice(0, 300)),
        widgets: panel.node.querySelectorAll('.jupyter-widgets.widget-container, .jupyter-widgets.widget-box').length,
        controls: panel.node.querySelectorAll('.widget-dropdown, .widget-slider, .widget-checkbox, .widget-toggle-button, .widget-textarea, .widget-button').length,
    };
}"""


@contextlib.contextmanager
def _open_in_lab(browser, url, path):
    """A wide page with JupyterLab showing the notebook at ``path`` (relative to the lab's root);
    yields (page, errors the page raised). Afterwards the notebook's kernel is shut down and the
    page closed, whatever the test did."""
    page = browser.new_page(viewport={"width": WIDE[0], "height": WIDE[1]})
    console_errors = []
    page.on("pageerror", lambda exc: console_errors.append(str(exc)))
    try:
        page.goto(f"{url}/lab?token={TOKEN}&reset", wait_until="domcontentloaded")
        page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
        page.evaluate(OPEN, path)
        yield page, console_errors
    finally:
        try:
            page.evaluate("window.jupyterapp.shell.currentWidget?.sessionContext?.shutdown()")
        except Exception:
            pass                              # the page may already be gone; close it anyway
        page.close()


def _wait_for_run(page, lesson, timeout=600, after=0, past_errors=False):
    """Poll until every code cell has an execution count above ``after`` and the kernel is
    idle; with ``past_errors`` False, return at the first error (Run All stops there)."""
    deadline = time.time() + timeout
    while True:
        state = page.evaluate(CELL_STATE)
        pending = [c["index"] for c in state["cells"] if not c["count"] or c["count"] <= after]
        if not pending and state["status"] == "idle":
            return state
        errors = _errors(state)
        if errors and not past_errors:     # run-all stops at the first error: report it now
            return state
        if time.time() > deadline:
            raise AssertionError(f"{lesson}: cells {pending[:10]} did not run within "
                                 f"{timeout} s (kernel {state['status']})")
        time.sleep(1)


def _errors(state):
    return [(c["index"], o) for c in state["cells"] for o in c["outputs"]
            if o.get("output_type") == "error"]


def _widget_roots(page):
    """Output areas that hold a widget, as element handles."""
    return page.query_selector_all(
        ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output:has(.jupyter-widgets)")


def _shown(root):
    """What a widget shows besides its controls: its HTML text, outputs and pictures."""
    return root.evaluate("""(el) => [...el.querySelectorAll(
        '.widget-html-content, .widget-output, img')].map(
        e => e.tagName === 'IMG' ? e.src.slice(-200) : e.innerText).join('\\n')""")


def _operate(page, root):
    """Change the first control of a widget that can change; returns what was done. A disabled
    dropdown (the player's block filter on a one-block launch) is not one a student can change."""
    for select in root.query_selector_all(".widget-dropdown select:not([disabled])"):
        values = select.evaluate("s => [...s.options].map(o => o.value)")
        current = select.evaluate("s => s.value")
        others = [v for v in values if v != current]
        if others:
            select.select_option(others[-1])
            return f"dropdown -> option {others[-1]}"
    handle = root.query_selector(".widget-slider .noUi-handle")
    if handle is not None:
        handle.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        return "slider moved three steps"
    box = root.query_selector(".widget-checkbox input")
    if box is not None:
        box.click()
        return "checkbox clicked"
    raise AssertionError("a widget without any dropdown, slider or checkbox that can change")


IMAGES_SHOWN = """(el) => [...el.querySelectorAll('img')].every(
    i => i.complete && i.naturalWidth > 0)"""
IMAGES_STATE = """(el) => [...el.querySelectorAll('img')].map(
    i => ({src: (i.getAttribute('src') || '').slice(0, 40), complete: i.complete,
           natural: i.naturalWidth, width: i.clientWidth, height: i.clientHeight}))"""


# The share of dark pixels in each picture of a widget (drawn onto a canvas): a figure that
# arrives truncated or empty shows as white.
INK = """async (el) => Promise.all([...el.querySelectorAll('img')].map(async (i) => {
    await i.decode().catch(() => null);
    const c = document.createElement('canvas');
    c.width = i.naturalWidth; c.height = i.naturalHeight;
    if (!c.width || !c.height) return 0;
    const x = c.getContext('2d'); x.drawImage(i, 0, 0);
    const d = x.getImageData(0, 0, c.width, c.height).data;
    let dark = 0;
    for (let k = 0; k < d.length; k += 4) if (d[k] + d[k + 1] + d[k + 2] < 384) dark++;
    return dark / (d.length / 4);
}))"""


def _screenshot(page, shots, lesson, size, tag):
    """The window at ``size``, scrolled to the first widget, and that widget on its own."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.wait_for_timeout(600)
    stem = lesson.removesuffix(".ipynb")
    roots = _widget_roots(page)
    if roots:
        roots[0].scroll_into_view_if_needed()
        page.wait_for_timeout(600)
        roots[0].scroll_into_view_if_needed()       # again: cells above may have grown
        roots[0].wait_for_element_state("stable")
        try:
            page.wait_for_function(IMAGES_SHOWN, arg=roots[0], timeout=20_000)
        except Exception:
            raise AssertionError(f"{lesson}: a widget's picture is not shown: "
                                 f"{roots[0].evaluate(IMAGES_STATE)}") from None
        roots[0].evaluate("(el) => Promise.all([...el.querySelectorAll('img')].map("
                          "i => i.decode().catch(() => null)))")
        page.wait_for_timeout(1500)
        roots[0].screenshot(path=str(shots / f"{stem}-widget-{tag}.png"))
    page.screenshot(path=str(shots / f"{stem}-{tag}.png"))


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_in_the_browser(lab, browser, shots, lesson):
    url, work = lab
    with _open_in_lab(browser, url, f"my-course/{lesson}") as (page, console_errors):
        page.wait_for_timeout(2000)           # the kernel's info arrives, settings load
        assert not page.evaluate(DIRTY), f"{lesson} opens modified (a dot on its tab)"
        clutter = page.evaluate(CLUTTER)
        assert not any(clutter.values()), f"{lesson}: shown to a student: {clutter}"
        page.evaluate(RUN_ALL)
        state = _wait_for_run(page, lesson)
        errors = _errors(state)
        assert not errors, f"{lesson}: cell {errors[0][0]} shows {errors[0][1].get('ename')}: " \
                           f"{errors[0][1].get('evalue')}"

        page.wait_for_timeout(1000)          # widget views render after the outputs arrive
        rendered = page.evaluate(RENDERED)
        fallback = [t for t in rendered["texts"]
                    if t.lstrip().startswith(("VBox(", "HBox(", "interactive(", "Box("))
                    or "Error displaying widget" in t]
        assert not fallback, f"{lesson}: widgets shown as text: {fallback[:2]}"
        assert rendered["controls"] >= 1, f"{lesson}: no control (slider, dropdown, ...) to operate"

        roots = _widget_roots(page)
        assert roots, f"{lesson}: no rendered widget"
        for k, root in enumerate(roots):
            root.scroll_into_view_if_needed()
            before = _shown(root)
            what = _operate(page, root)
            # a wait, not a speed check: the kernel behind a widget runs on a shared CI box (20 s
            # was once too short under load); a widget that never redraws still fails
            deadline = time.time() + 60
            while _shown(root) == before:
                assert time.time() < deadline, \
                    f"{lesson}: widget {k}: {what}, but what it shows did not change"
                page.wait_for_timeout(250)
            page.wait_for_timeout(500)
            ink = root.evaluate(INK)
            assert all(share > 0.01 for share in ink), \
                f"{lesson}: widget {k}: a picture is (nearly) blank after {what}: {ink}"

        _screenshot(page, shots, lesson, NARROW, "narrow")
        _screenshot(page, shots, lesson, WIDE, "wide")
        assert not console_errors, f"{lesson}: errors in the page: {console_errors[:3]}"


# --- the step-through player (barrier_course.lessons.player) ---------------------------------------

# The seeds' if/else with a barrier on each side: with 64 threads and split 40, warp 1 splits
# (lanes 0-7 take `then`, 8-31 `else`) and the launch ends in a divergent-barrier fault.
from seed_kernels import IFELSE as PLAYER_KERNEL  # noqa: E402 (the one definition of the seeds' kernel)
PLAYER_THREADS, PLAYER_SPLIT = 64, 40
PLAYER_CELL = f'''import numpy as np
import simcore
from barrier_course.lessons import player

SRC = r"""{PLAYER_KERNEL}"""
kernel = simcore.RawModule(code=SRC).get_function("ifelse")
player.show(kernel, (1,), ({PLAYER_THREADS},), (np.zeros({PLAYER_THREADS}, np.int32), np.int32({PLAYER_SPLIT})))
'''

# What the player shows, read from its parts (the player-* classes of barrier_course.lessons.player).
PLAYER_VIEW = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const part = (name) => panel.node.querySelector(`.${name} .widget-html-content`);
    const label = part('player-step-label'), grid = part('player-grid');
    const source = part('player-source'), report = part('player-report');
    const visible = (e) => !!e && e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().height > 0;
    return {
        label: label ? label.innerText : null,
        grid: grid ? grid.innerHTML : null,
        lanes: grid ? grid.querySelectorAll('.grid i').length : 0,
        source: source ? source.innerText : null,
        report: report ? report.innerText : null,
        shown: [label, grid, source].every(visible),
    };
}"""


def _player_step(view):
    import re

    found = re.search(r"\bstep (\d+):", view["label"] or "")
    assert found, f"no step number in the player's step label: {view['label']!r}"
    return int(found.group(1))


def test_player_in_the_browser(lab, browser, shots):
    """The player renders as widgets, stepping changes the picture, the fault jump lands on
    the fault (the step the recording says it is)."""
    import nbformat
    import numpy as np

    import simcore
    from barrier_course.lessons import player

    # where the fault is, from the same launch recorded here
    kernel = simcore.RawModule(code=PLAYER_KERNEL, backend="sim").get_function("ifelse")
    rec = player.record(kernel, (1,), (PLAYER_THREADS,),
                        (np.zeros(PLAYER_THREADS, np.int32), np.int32(PLAYER_SPLIT)))
    fault_step, fault_title = rec.fault_frame, rec.fault.report["title"]
    assert fault_step is not None and fault_step >= 2 and "divergent" in fault_title

    url, work = lab
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PLAYER_CELL)])
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, str(work / "player_check.ipynb"))

    def view_after(click, what, changed_from):
        """Click a player button (or, with ``click=None``, nothing); wait until its step label
        differs from ``changed_from`` and the view has settled (each part of the player
        arrives as its own widget update)."""
        if click:
            page.click(f".jp-NotebookPanel:not(.lm-mod-hidden) button.{click}")
        deadline = time.time() + 20
        last = None
        while True:
            view = page.evaluate(PLAYER_VIEW)
            if view["label"] != changed_from and view == last:
                return view
            assert time.time() < deadline, f"{what}: the step label stayed {changed_from!r}"
            last = view
            page.wait_for_timeout(400)

    with _open_in_lab(browser, url, "player_check.ipynb") as (page, console_errors):
        page.wait_for_timeout(1000)
        page.evaluate(RUN_ALL)
        state = _wait_for_run(page, "player_check.ipynb", timeout=120)
        errors = _errors(state)
        assert not errors, f"the player cell shows {errors[0][1].get('ename')}: " \
                           f"{errors[0][1].get('evalue')}"
        page.wait_for_function(
            "() => !!window.jupyterapp.shell.currentWidget.node.querySelector("
            "'.player-grid .widget-html-content i')", timeout=30_000)

        # rendered as widgets: its parts are HTML on the page, not the VBox(...) repr
        rendered = page.evaluate(RENDERED)
        assert not [t for t in rendered["texts"] if "VBox(" in t or "Error displaying widget" in t]
        opened = view_after(None, "opening the player", None)
        assert opened["shown"], "the player's step label, source pane or lane grid is not visible"
        assert "__syncthreads();" in opened["source"]
        assert opened["lanes"] == PLAYER_THREADS            # one cell per lane, 2 warps
        # a launch that ends in a fault opens at the fault, with the report beside it
        assert _player_step(opened) == fault_step and "THE FAULT" in opened["label"]
        assert fault_title in opened["report"] and "How to fix it" in opened["report"]
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .player").first.screenshot(
            path=str(shots / "player-at-the-fault.png"))

        # step back: one step earlier, another picture, the fault announced as ahead
        back = view_after("player-step-back", "step back", opened["label"])
        assert _player_step(back) == fault_step - 1
        assert back["grid"] != opened["grid"], "step back did not change the lane grid"
        assert f"ends in this fault at step {fault_step}" in back["report"]
        back2 = view_after("player-step-back", "step back again", back["label"])
        assert _player_step(back2) == fault_step - 2 and back2["grid"] != back["grid"]
        # step forward: the picture of that step again
        forward = view_after("player-step", "step", back2["label"])
        assert _player_step(forward) == fault_step - 1 and forward["grid"] == back["grid"]
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .player").first.screenshot(
            path=str(shots / "player-before-the-fault.png"))

        # the fault jump lands on the fault's step, with the fault shown
        fault = view_after("player-fault", "the fault", forward["label"])
        assert _player_step(fault) == fault_step and "THE FAULT" in fault["label"]
        assert fault["grid"] == opened["grid"]
        assert fault_title in fault["report"] and "ends in this fault" not in fault["report"]
        assert not console_errors, f"errors in the page: {console_errors[:3]}"


# --- CUDA highlighting (labextension/: the course's JupyterLab extension) --------------------

CUDA_CELLS = [
    # the course's cell magic (barrier_course/lessons/notebook.py): the body is CUDA C
    '%%cuda SOURCE\nextern "C" __global__ void twice(float *y, int n)\n'
    '{\n    int i = threadIdx.x;  // my element\n    if (i < n) y[i] = 2.0f * y[i];\n}',
    # an exercise's kernel: a Python string the grader reads, its contents CUDA C
    'source = r"""\nextern "C" __global__ void twice(float *y, int n)\n'
    '{\n    int i = threadIdx.x;\n}\n"""',
    # plain Python, and a string that is no kernel: both stay Python
    'for i in range(3):\n    label = "extern void"\n    print(i, label)',
]

# The colour JupyterLab's theme gives the first token that is exactly ``word`` in code cell
# ``cell`` (CodeMirror puts each highlighted token in its own span), or null.
TOKEN_COLOUR = """([cell, word]) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const content = panel.content.widgets[cell].node.querySelector('.cm-content');
    const walk = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        if (node.textContent.trim() === word)
            return getComputedStyle(node.parentElement).color;
    }
    return null;
}"""


def test_cuda_in_cells_is_highlighted_as_cpp(lab, browser, shots):
    """A ``%%cuda`` cell's body and a kernel string's contents get C++ colours (``extern``
    a keyword, as Python's ``for``); the string's quotes and a string that is no kernel keep
    the string colour; Python cells are Python."""
    import nbformat

    url, work = lab
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CUDA_CELLS]
    # a kernel to open with (no kernel chooser), as the lessons have
    nb.metadata = nbformat.from_dict(
        _tasks_module().kernel_metadata(Path(sys.executable)))
    nbformat.write(nb, work / "cuda_highlight.ipynb")
    with _open_in_lab(browser, url, "cuda_highlight.ipynb") as (page, console_errors):
        page.wait_for_function("document.querySelectorAll("
                               "'.jp-NotebookPanel:not(.lm-mod-hidden) .cm-content').length >= 3",
                               timeout=30_000)
        page.wait_for_timeout(1500)           # the language loads, the parse finishes

        def colour(cell, word):
            found = page.evaluate(TOKEN_COLOUR, [cell, word])
            assert found is not None, f"no token {word!r} in cell {cell}"
            return found

        keyword = colour(2, "for")           # Python's keyword colour
        string = colour(2, '"extern void"')  # Python's string colour
        plain = colour(2, "label")           # a Python variable
        assert len({keyword, string, plain}) == 3, (keyword, string, plain)
        page.screenshot(path=str(shots / "cuda-highlight.png"))
        for cell, what in ((0, "%%cuda cell"), (1, "kernel string")):
            assert colour(cell, "extern") == keyword, \
                f"{what}: 'extern' is not coloured as a keyword (C++ highlighting is off)"
            assert colour(cell, '"C"') == string, f"{what}: the C string \"C\" is not a string"
            assert colour(cell, "int") not in (plain, keyword, string), \
                f"{what}: the C type 'int' is not coloured as a type"
        assert colour(0, "// my element") not in (plain, keyword, string), \
            "%%cuda cell: the C comment is not coloured as a comment"
        assert colour(1, 'r"""') == string, "the kernel string's quotes lost the string colour"
        assert not console_errors, f"errors in the page: {console_errors[:3]}"


# --- a student's exercise, from the start page to full marks ----------------------------------

EXERCISE = "ex01_tail_handling"
EXERCISE_PATH = f"my-course/exercises/{EXERCISE}/{EXERCISE}.ipynb"
WRONG_FILL = "tile[t] = (i < n) ? in[i] : 0.0f;"                  # the barrier is missing
RIGHT_FILL = "tile[t] = (i < n) ? in[i] : 0.0f;\n    __syncthreads();"

# Replace the answer cell's stub line (or the previous fill, marked) with ``fill``; the
# notebook model is what the student's typing changes.
WRITE_ANSWER = """(fill) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cells = panel.content.model.cells;
    for (let i = 0; i < cells.length; i++) {
        const c = cells.get(i);
        const src = c.sharedModel.getSource();
        if (!src.startsWith('source = r')) continue;
        const next = src.replace(/^ *(__simcore_todo\\(.*\\);|\\/\\/ BROWSER-TEST FILL[\\s\\S]*?\\/\\/ END FILL)$/m,
                                 '    // BROWSER-TEST FILL\\n    ' + fill + '\\n    // END FILL');
        c.sharedModel.setSource(next);
        return next !== src;
    }
    return false;
}"""

SUMMARY_TEXT = """() => {
    const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
    const last = cells.get(cells.length - 1);
    return last.outputs.toJSON().map(o => o.text || '').join('');
}"""

SAVE = "async () => { await window.jupyterapp.shell.currentWidget.context.save(); }"


def _digests(folder):
    import hashlib

    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".ipynb_checkpoints" not in p.parts}


def _run_all_to_the_summary(page, what):
    before = max([c["count"] or 0 for c in page.evaluate(CELL_STATE)["cells"]] + [0])
    page.evaluate(RUN_ALL)
    state = _wait_for_run(page, what, timeout=900, after=before, past_errors=True)
    return state, page.evaluate(SUMMARY_TEXT)


def test_an_exercise_from_the_start_page_to_full_marks(lab, browser, shots):
    """The issue's walk: open the exercise from 00_start, a wrong answer and Run All (every
    test reports, the summary comes last and says what failed), a right one and Run All
    (10 / 10); nothing tracked changed on disk, and Generate keeps the student's work."""
    url, work = lab
    tracked = {part: _digests(work / part) for part in TRACKED if (work / part).is_dir()}
    # a committed notebook opened by mistake: read-only, a save never reaches the disk
    with _open_in_lab(browser, url, f"exercises/{EXERCISE}/{EXERCISE}.ipynb") as (page, _):
        page.wait_for_timeout(2000)
        assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context"
                             ".contentsModel.writable") is False
        page.evaluate("async () => { try { await window.jupyterapp.shell.currentWidget"
                      ".context.save(); } catch (e) {} }")
        page.wait_for_timeout(1000)
    with _open_in_lab(browser, url, "my-course/00_start.ipynb") as (page, console_errors):
        page.wait_for_timeout(1500)
        link = page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown "
                            f"a[href*='{EXERCISE}.ipynb']").first
        link.scroll_into_view_if_needed()
        link.click()
        page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget?.context?.path === "
                               f"'{EXERCISE_PATH}'", timeout=60_000)
        page.evaluate("async () => { const p = window.jupyterapp.shell.currentWidget; "
                      "await p.context.ready; await p.sessionContext.ready; }")
        page.wait_for_timeout(2000)
        assert not page.evaluate(DIRTY), "the exercise opens modified (a dot on its tab)"
        # the Nbgrader menu's "Formgrader" and "Formgrader (local)" are these commands
        offered = page.evaluate("() => window.jupyterapp.commands.listCommands()"
                                ".filter(c => c.includes('formgrader'))")
        assert not offered, f"a student's JupyterLab offers the Formgrader: {offered}"
        assert page.evaluate("() => window.jupyterapp.commands.hasCommand("
                             "'nbgrader:open-assignment-list')"), "no Assignment List"
        status = page.evaluate(f"async () => (await fetch('{url}/formgrader?token={TOKEN}')).status")
        assert status == 404, f"the Formgrader answers a student's session ({status})"

        assert page.evaluate(WRITE_ANSWER, WRONG_FILL), "no answer cell with the stub line"
        state, text = _run_all_to_the_summary(page, "wrong answer")
        failed = [i for i, o in _errors(state)]
        assert len(failed) == 3, f"every test should run and report; errors in cells {failed}"
        assert "Total: 0 / 10" in text and text.count("failed: ") == 3, text
        page.screenshot(path=str(shots / "exercise-wrong.png"))

        assert page.evaluate(WRITE_ANSWER, RIGHT_FILL)
        state, text = _run_all_to_the_summary(page, "right answer")
        assert not _errors(state), _errors(state)[:1]
        assert "Total: 10 / 10" in text, text
        page.evaluate(SAVE)
        page.screenshot(path=str(shots / "exercise-right.png"))
        assert not console_errors, f"errors in the page: {console_errors[:3]}"

    answer = (work / EXERCISE_PATH).read_text()
    assert "__syncthreads();" in answer and "BROWSER-TEST FILL" in answer
    for part, digests in tracked.items():
        assert _digests(work / part) == digests, f"{part}/ changed on disk"
    assert not [p.name for p in work.iterdir() if p.name.startswith("ex0")], \
        "an assignment folder appeared in the repository's root"

    # Generate (what the Formgrader's button and `tasks.py release` run), even confirmed,
    # replaces the release, never the student's copy
    import subprocess

    from course_testing import tool, tool_env
    env = dict(tool_env(), BARRIER_COURSE_REPLACE_RELEASE="1")
    proc = subprocess.run([tool("nbgrader"), "generate_assignment", EXERCISE, "--force"], cwd=work,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (work / EXERCISE_PATH).read_text() == answer, "Generate changed the student's work"


# --- the player fits the window ---------------------------------------------------------------

# Every control, lane and arrival chip of the player, and whether it is inside the part of the
# page that shows it: within the window, and within every ancestor that clips (overflow).
PLAYER_FIT = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const root = panel.node.querySelector('.player');
    const vw = document.documentElement.clientWidth;
    const out = [];
    const check = (e, what) => {
        const r = e.getBoundingClientRect();
        let left = 0, right = vw;
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== 'visible') {
                const ar = a.getBoundingClientRect();
                left = Math.max(left, ar.left); right = Math.min(right, ar.right);
            }
        }
        if (r.width < 1.5 || r.left < left - 1 || r.right > right + 1)
            out.push({what, left: Math.round(r.left), right: Math.round(r.right),
                      width: Math.round(r.width), shown: [Math.round(left), Math.round(right)]});
    };
    const controls = root.querySelectorAll('.jupyter-button, .widget-slider, .widget-dropdown, .widget-toggle-button');
    controls.forEach(e => check(e, 'control ' + (e.innerText || e.className).trim().slice(0, 30)));
    const lanes = root.querySelectorAll('.player-grid .row i');
    lanes.forEach((e, k) => check(e, 'lane ' + k));
    const chips = [...root.querySelectorAll('.player-grid .info, .player-source .chip')].filter(e => e.innerText.trim());
    chips.forEach(e => check(e, 'chip ' + e.innerText.trim().slice(0, 30)));
    const scrolled = [...root.querySelectorAll('*')].filter(
        e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
        .map(e => e.className.toString().slice(0, 60));
    const report = root.querySelector('.player-report').getBoundingClientRect();
    return {outside: out.slice(0, 8), nOutside: out.length, controls: controls.length,
            lanes: lanes.length, chips: chips.length, scrolled, reportWidth: Math.round(report.width),
            panelWidth: Math.round(panel.content.node.getBoundingClientRect().width)};
}"""


@pytest.mark.parametrize("width", [800, 1400])
def test_the_player_fits_the_window(lab, browser, shots, width):
    """At 800 px with the file browser open, and at 1400 px: every control, lane and arrival
    chip is inside the visible area, nothing scrolls sideways, the report is readable."""
    import nbformat

    url, work = lab
    path = work / f"player_fit_{width}.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PLAYER_CELL)])
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, str(path))
    with _open_in_lab(browser, url, path.name) as (page, console_errors):
        page.set_viewport_size({"width": width, "height": 900})
        if width <= 800:
            page.evaluate("async () => { await window.jupyterapp.commands.execute('filebrowser:activate'); }")
        page.wait_for_timeout(1000)
        page.evaluate(RUN_ALL)
        state = _wait_for_run(page, path.name, timeout=180)
        assert not _errors(state), _errors(state)[:1]
        page.wait_for_function(
            "() => !!window.jupyterapp.shell.currentWidget.node.querySelector("
            "'.player-grid .widget-html-content i')", timeout=30_000)
        page.wait_for_timeout(1500)
        if width <= 800:
            assert page.evaluate("() => !window.jupyterapp.shell.leftCollapsed"), \
                "the file browser is not open"
        fit = page.evaluate(PLAYER_FIT)
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .player").first.screenshot(
            path=str(shots / f"player-{width}.png"))
        page.screenshot(path=str(shots / f"player-window-{width}.png"))
        assert fit["controls"] >= 9 and fit["lanes"] == PLAYER_THREADS and fit["chips"] >= 1, fit
        assert fit["nOutside"] == 0, f"at {width} px, outside the visible area: {fit['outside']}"
        assert not fit["scrolled"], f"at {width} px, scrolls sideways: {fit['scrolled']}"
        assert fit["reportWidth"] >= min(280, 0.8 * fit["panelWidth"]), fit
        assert not console_errors, f"errors in the page: {console_errors[:3]}"
