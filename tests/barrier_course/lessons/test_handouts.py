"""`tasks.py handouts` (barrier_course.lessons.handouts): from the lesson notebooks, an executed HTML
handout per lesson with every figure (a static picture where a widget stands), kernels
highlighted as CUDA, a one-file workshop bundle, and PDFs printed by headless Chromium."""

import json
import re

import pytest

from barrier_course.lessons import handouts
from course_testing import ROOT

pytestmark = pytest.mark.slow

LESSONS = handouts.lesson_paths(ROOT / "course")
# what puts a picture into a lesson's output: a figure function, or a widget with a picture
# (the kernel editor's trace, the cost-model explorers' plots; launch_explorer has none)
PICTURE_CALL = re.compile(r"(_figure\(|kernel_editor\(|cost_model_explorer\(|exchange_explorer\()")
EMBEDDED_PNG = re.compile(r'<img[^>]*src="data:image/png;base64,')
# the step-through player's static form: its lane grid (barrier_course.lessons.player.render_lanes)
PLAYER_CALL = re.compile(r"\bplayer\.(show|show_source|from_launch)\(")
PLAYER_GRID = '<div class="grid">'
WIDGET_NOTE = "(an interactive widget: open the notebook in JupyterLab to use it)"


def _expected_pictures(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return sum(1 for c in nb["cells"] if c["cell_type"] == "code"
               and PICTURE_CALL.search("".join(c["source"]))
               and not "".join(c["source"]).lstrip().startswith("def "))


def _cells_calling(path, call):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return sum(1 for c in nb["cells"] if c["cell_type"] == "code"
               and call.search("".join(c["source"])))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("handouts")
    return out, handouts.build_handouts(out, LESSONS, pdf=handouts.find_chromium() is not None,
                                        log=lambda *_: None)


def test_every_lesson_has_a_handout_with_its_figures(built):
    out, written = built
    total = 0
    for path in LESSONS:
        html = written[path.stem].read_text(encoding="utf-8")
        want = _expected_pictures(path)
        got = len(EMBEDDED_PNG.findall(html))
        assert got >= want, f"{path.name}: {got} pictures in the handout, expected at least {want}"
        assert "VBox(" not in html and "HBox(" not in html, f"{path.name}: a widget shown as text"
        assert 'src="http' not in html, f"{path.name}: the handout loads something from the network"
        players = _cells_calling(path, PLAYER_CALL)
        assert html.count(PLAYER_GRID) >= players, \
            f"{path.name}: {players} player cells, {html.count(PLAYER_GRID)} player pictures"
        total += got
    bundle = written["workshop"].read_text(encoding="utf-8")
    assert len(EMBEDDED_PNG.findall(bundle)) == total
    # each lesson after the first starts a new printed page
    starts = re.findall(r'class="[^"]*celltag_lesson-start', bundle)
    assert len(starts) == len(LESSONS) - 1
    text = re.sub(r"<[^>]+>", "", bundle)
    for path in LESSONS:                      # every lesson, with its title, in the bundle
        title = json.loads(path.read_text())["cells"][0]["source"][0].lstrip("# ").strip()
        assert title.split(" — ")[-1].replace("`", "") in text, path.name


def test_kernels_are_highlighted_as_cuda(built):
    _, written = built
    html = written["01_barrier_guarantees"].read_text(encoding="utf-8")
    # Pygments' CUDA lexer: __global__ a reserved keyword (kr), float a type (kt); the Python
    # lexer would leave the kernel one string (s2/sd)
    assert '<span class="kr">__global__</span>' in html
    assert '<span class="kt">float</span>' in html
    html7 = written["07_cost_and_block_size"].read_text(encoding="utf-8")
    assert '<span class="kr">__global__</span>' in html7      # a kernel inside a Python string


def test_pdfs_are_printed(built):
    _, written = built
    if handouts.find_chromium() is None:
        pytest.skip("no Chromium: the PDF step is skipped (the HTML handouts are built)")
    for name in [p.stem for p in LESSONS] + ["workshop"]:
        data = written[name + ".pdf"].read_bytes()
        assert data.startswith(b"%PDF"), name
    def pages(name):
        return len(re.findall(rb"/Type\s*/Page[^s]", written[name + ".pdf"].read_bytes()))

    # each lesson starts a new page: the bundle has exactly the lessons' pages
    assert pages("workshop") == sum(pages(p.stem) for p in LESSONS)


from seed_kernels import IFELSE  # noqa: E402 (the one definition of the seeds' kernel)

# The seeds' if/else with a barrier on each side; 64 threads split at 40: a divergent barrier.
PLAYER_LESSON_CELL = ('import numpy as np\nimport simcore\nfrom barrier_course import player\n\n'
                      'SRC = r"""' + IFELSE + '"""\n'
                      'kernel = simcore.RawModule(code=SRC).get_function("ifelse")\n'
                      'watch = player.show(kernel, (1,), (64,), (np.zeros(64, np.int32), np.int32(40)))\n'
                      'watch.go(STEP)          # the step the handout shows\n'
                      'watch\n')


def test_a_player_cell_becomes_the_players_picture_at_its_step(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Watching the if/else"),
        nbformat.v4.new_code_cell(PLAYER_LESSON_CELL.replace("STEP", "2"))])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    lesson = tmp_path / "90_player.ipynb"
    nbformat.write(nb, str(lesson))
    html = handouts.to_html(handouts.lesson_notebook(lesson), "player")
    assert WIDGET_NOTE not in html and "VBox(" not in html
    assert html.count(PLAYER_GRID) == 1                           # the lane grid, drawn
    assert html.count('<i class="run"') == 24 and html.count('<i class="bar"') == 40
    assert "step 2: line 11 runs" in html                          # at the step chosen
    assert "ends in this fault at step 3" in html and "divergent" in html
    assert "at step 2 of 3" in html                                # the one-line summary


# A page of what made handouts run past the right margin: a long code line, a long output
# line, a wide text table, and the player (lanes and chips).
WIDE_LINES_CELL = ('row = " | ".join(f"warp {k:2d} completed" for k in range(12))\n'
                   'print(row)\n'
                   'print("x" * 220)\n'
                   'values = [' + ", ".join(str(k) for k in range(70)) + ']  # END-OF-LONG-LINE\n')

# Under print media, in Chromium at A4: any element wider than the page's content box, or
# cut by its box (a scroll width beyond its width).
PRINT_OVERFLOW = """() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const e of document.querySelectorAll('body *')) {
        const r = e.getBoundingClientRect();
        if (!r.width) continue;
        const cut = ['hidden', 'auto', 'scroll', 'clip'].includes(getComputedStyle(e).overflowX)
                    && e.scrollWidth > e.clientWidth + 1;
        if (r.right > width + 1 || cut)
            out.push(`${e.tagName}.${e.className}`.slice(0, 80) + ` right ${Math.round(r.right)} of ${width}` + (cut ? ' (cut)' : ''));
    }
    return out.slice(0, 10);
}"""


def test_printed_pages_keep_every_line_inside_the_margins(tmp_path):
    """The handout of a page with long lines, printed to PDF and rendered to images: no ink in
    the right margin of any page; and in print layout no element is wider than the page or
    cut off by its box."""
    import shutil
    import subprocess

    import nbformat
    import numpy as np

    chromium = handouts.find_chromium()
    if chromium is None or shutil.which("pdftoppm") is None:
        pytest.skip("needs Chromium and pdftoppm (Debian: apt-get install chromium poppler-utils)")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Long lines"),
        nbformat.v4.new_code_cell(WIDE_LINES_CELL),
        nbformat.v4.new_code_cell(PLAYER_LESSON_CELL.replace("STEP", "2"))])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    lesson = tmp_path / "91_long_lines.ipynb"
    nbformat.write(nb, str(lesson))
    out = tmp_path / "out"
    written = handouts.build_handouts(out, [lesson], pdf=True, log=lambda *_: None)
    pdf = written["91_long_lines.pdf"]
    subprocess.run(["pdftoppm", "-r", "40", "-gray", str(pdf), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page*.pgm"))
    assert pages
    for page in pages:
        raw = page.read_bytes()
        # binary PGM: "P5\n<w> <h>\n<max>\n" then one byte a pixel
        head = raw.split(b"\n", 3)
        w, h = map(int, head[1].split())
        pixels = np.frombuffer(head[3][: w * h], np.uint8).reshape(h, w)
        margin = pixels[:, int(w * 0.96):]           # the outer part of A4's 12 mm margin
        assert (margin > 200).all(), f"{page.name}: ink in the right margin"

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 718, "height": 1000})  # A4 less 2 x 12 mm
            page.emulate_media(media="print")
            page.goto(written["91_long_lines"].resolve().as_uri())
            overflow = page.evaluate(PRINT_OVERFLOW)
        finally:
            browser.close()
    assert not overflow, f"in print layout, past the page or cut: {overflow}"


def test_executing_a_lesson_logs_no_kernel_transport_warning(tmp_path):
    import subprocess
    import sys

    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    lesson = tmp_path / "92_quiet.ipynb"
    nbformat.write(nb, str(lesson))
    code = ("import sys; from barrier_course.lessons import handouts; "
            "nb = handouts.execute(sys.argv[1]); print(nb.cells[0].outputs[0]['text'].strip())")
    proc = subprocess.run([sys.executable, "-c", code, str(lesson)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("42")
    assert "without encryption" not in proc.stderr and "Parent appears to have exited" not in proc.stderr
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("kernel")]


def test_a_kernel_string_cell_is_one_box_with_cuda_and_python_colours(tmp_path):
    import nbformat

    cell = ('import numpy as np\nSRC = r"""\n__global__ void k(float *x)\n{\n    x[0] = 1.0f;\n}\n"""\n'
            'print(len(SRC), "done")\n')
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    lesson = tmp_path / "93_kernel_string.ipynb"
    nbformat.write(nb, str(lesson))
    html = handouts.to_html(handouts.lesson_notebook(lesson), "kernel string")
    assert html.count('class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor"') == 1
    assert html.count('class="jp-InputPrompt jp-InputArea-prompt"') == 1
    assert '<span class="kr">__global__</span>' in html and '<span class="kt">float</span>' in html
    # the Python after the closing quotes is Python: print a builtin, "done" a string of its own
    assert '<span class="nb">print</span>' in html and '<span class="s2">"done"</span>' in html
    assert '<span class="kn">import</span>' in html
