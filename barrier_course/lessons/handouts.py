"""Printable handouts built from the lesson notebooks: ``python3 tasks.py handouts``.

For every lesson in ``course/`` (the same notebooks the students open):

1. execute it top to bottom in a fresh kernel (nbclient, through nbconvert);
2. where a widget stands, keep its static form: the course's widgets also offer an HTML
   rendition of their current state (``widgets.show_as_text``: the summary and the picture;
   the step-through player draws its view at the step it shows),
   and the live widget view is dropped, so a handout never shows ``VBox(...)`` or needs a
   kernel;
3. highlight kernels as CUDA: ``%%cuda`` cells with Pygments' CUDA lexer, and in a Python cell
   the ``r\"\"\"...\"\"\"`` string holding a ``__global__`` kernel in CUDA colours, inside the
   cell's one box, the Python before and after it in Python's;
4. write ``<out>/<lesson>.html`` (one self-contained file, figures inline) and the one-file
   workshop bundle ``<out>/workshop.html`` (every lesson, each on a new page when printed);
5. print each HTML file to PDF with headless Chromium (``--print-to-pdf``).

Why Chromium for the PDF: it works offline, prints exactly the HTML a student would see,
and is what the browser test already uses. nbconvert's ``webpdf`` exporter downloads its own
Chromium through Playwright at first use, and its LaTeX route needs a TeX installation
(xelatex) of several hundred MB; neither is available on an offline class machine. Without
Chromium the HTML handouts are still built and the PDF step says why it was skipped.

Black and white: the pictures (``barrier_course.lessons.pictures``, ``cost_model``) tell states
and series apart by hatching, markers and line styles as well as colour.

Run inside the course environment: ``python -m barrier_course.lessons.handouts --out handouts``.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["build_handouts", "lesson_paths", "find_chromium"]

ROOT = Path(__file__).resolve().parent.parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PRINT_CSS = """
<style>
  /* handouts: readable on paper and on screen */
  body { max-width: 1100px; margin: 0 auto; }
  .jp-OutputArea-output img { max-width: 100%; height: auto; }
  .celltag_lesson-start { break-before: page; page-break-before: always; }
  pre.widget-summary { border-left: 4px solid #555; padding-left: 6px; }
  @media print {
    @page { size: A4; margin: 14mm 12mm; }
    body { max-width: none; }
    .jp-Cell, .jp-OutputArea-output, img { break-inside: avoid; page-break-inside: avoid; }
    .jp-InputPrompt, .jp-OutputPrompt { display: none; }
    /* a long code or output line wraps at the margin (at spaces: a table's words stay whole)
       instead of running past it or being cut off */
    pre, .highlight pre, .jp-OutputArea-output pre, .jp-RenderedText pre {
      white-space: pre-wrap !important; word-break: normal !important;
      overflow-wrap: anywhere !important; }
    .jp-OutputArea-output pre, .highlight pre { font-size: 8pt; }
    .jp-InputArea-editor, .jp-OutputArea-output, .jp-OutputArea, .jp-Cell-inputWrapper,
    .jp-Cell-outputWrapper, .jp-RenderedHTMLCommon, .jp-RenderedText, .highlight,
    .simpl, .simpl div { overflow: visible !important; max-width: 100%; }
  }
</style>
"""


def lesson_paths(course=ROOT / "course"):
    return sorted(p for p in Path(course).glob("[0-9][0-9]_*.ipynb"))


def find_chromium():
    for cand in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                 shutil.which("chromium-browser"), shutil.which("google-chrome"),
                 "/usr/bin/chromium"):
        if cand and Path(cand).exists():
            return cand
    return None


# --------------------------------------------------------------------- notebooks

#: set while a handout's lesson runs (barrier_course.lessons.notebook.setup reads it)
HANDOUT_ENV = "BARRIER_COURSE_HANDOUT"


def _kernel_manager(folder):
    """The lesson's kernel, on local sockets in ``folder`` where the system has them: a kernel
    on TCP without encryption warns once per lesson, which a build log need not show."""
    from jupyter_client import KernelManager

    if os.name != "posix":
        return KernelManager(kernel_name="python3")
    return KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(folder, "kernel"))


def execute(path, timeout=600):
    """The lesson executed in a fresh kernel, run in its own folder."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    env_backend = os.environ.pop("SIMCORE_BACKEND", None)   # handouts show the simulator
    # a printed page names the simulator's version, not the build machine's folders
    os.environ[HANDOUT_ENV] = "1"
    try:
        with tempfile.TemporaryDirectory() as sockets:
            km = _kernel_manager(sockets)
            try:
                NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                               resources={"metadata": {"path": str(Path(path).parent)}}).execute()
            finally:
                if km.has_kernel:       # nbclient leaves the kernel of a manager it was given
                    km.shutdown_kernel(now=True)
    finally:
        os.environ.pop(HANDOUT_ENV, None)
        if env_backend is not None:
            os.environ["SIMCORE_BACKEND"] = env_backend
    return nb


def static_widgets(nb):
    """Drop live widget views (their HTML/text rendition stays) and the widget state."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data and WIDGET_VIEW in data:
                data.pop(WIDGET_VIEW)
                if not ({"text/html", "image/png"} & set(data)):
                    # a widget without a static form (widgets.show_as_text): its text is only
                    # its repr, "VBox(children=...)"; say what stands there instead
                    data.clear()
                    data["text/plain"] = ("(an interactive widget: open the notebook in "
                                          "JupyterLab to use it)")
    nb.metadata.pop("widgets", None)
    return nb


_KERNEL_STRING = re.compile(r'(?P<open>\b[A-Za-z_]\w*\s*=\s*r?""")(?P<body>.*?__global__.*?)(?P<close>""")',
                            re.S)


INPUT_HTML = "handout_input_html"     # cell metadata: the cell's input, highlighted by us


def _python_html(text, after_kernel):
    """``text`` highlighted as Python. ``after_kernel``: it starts with the quotes that close
    a kernel string, so it is lexed behind an opening ``r\"\"\"`` whose tokens are dropped
    (alone, the closing quotes would open a string and colour the rest of the cell as one)."""
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    prefix = 'r"""' if after_kernel else ""
    lexer = PythonLexer(stripnl=False, ensurenl=False)
    tokens = []
    for index, kind, value in lexer.get_tokens_unprocessed(prefix + text):
        keep = value[max(0, len(prefix) - index):]
        if keep:
            tokens.append((kind, keep))
    return _format(tokens, HtmlFormatter(nowrap=True))


def _cuda_html(text):
    from pygments import lex
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import CudaLexer

    return _format(lex(text, CudaLexer(stripnl=False, ensurenl=False)), HtmlFormatter(nowrap=True))


def _format(tokens, formatter):
    import io

    out = io.StringIO()
    formatter.format(tokens, out)
    return out.getvalue()


def split_kernel_strings(nb):
    """Highlight the CUDA inside a Python cell as CUDA, in the cell's one input box.

    In ``NAME = r\"\"\"<kernel>\"\"\"`` the kernel gets Pygments' CUDA colours and the
    Python around it Python's, the Python after the closing quotes included; the cell stays
    one cell (one box, one prompt, its outputs under it). The highlighted input goes into the
    cell's metadata (``INPUT_HTML``) and ``to_html`` puts it in place of nbconvert's.
    ``%%cuda`` cells are highlighted as CUDA by nbconvert's magics preprocessor (configured in
    ``to_html``).
    """
    for cell in nb.cells:
        src = cell.source
        if cell.cell_type != "code" or "__global__" not in src or src.lstrip().startswith("%%"):
            continue
        try:
            ast.parse(src)
        except SyntaxError:
            continue
        parts, pos = [], 0
        for m in _KERNEL_STRING.finditer(src):
            parts.append(_python_html(src[pos:m.end("open")], after_kernel=pos > 0))
            parts.append(_cuda_html(m.group("body")))
            pos = m.start("close")
        if parts:
            parts.append(_python_html(src[pos:], after_kernel=True))
            cell.metadata[INPUT_HTML] = "".join(parts)
    return nb


_INPUT_BLOCK = '<div class="highlight hl-ipython3"><pre><span></span>'


def _own_inputs(body, nb):
    """nbconvert's highlighted input of each cell that carries ``INPUT_HTML`` replaced by it."""
    for cell in nb.cells:
        own = cell.get("metadata", {}).get(INPUT_HTML)
        anchor = f'id="cell-id={cell.get("id")}"'
        if not own or not cell.get("id") or anchor not in body:
            continue
        at = body.index(anchor)
        start = body.find(_INPUT_BLOCK, at)
        end = body.find("</pre></div>", start)
        if start < 0 or end < 0:
            continue
        body = body[:start + len(_INPUT_BLOCK)] + own.rstrip("\n") + "\n" + body[end:]
    return body


def to_html(nb, title):
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.HighlightMagicsPreprocessor.enabled = True
    config.HighlightMagicsPreprocessor.languages = {"%%cuda": "cuda"}
    exporter = HTMLExporter(config=config, template_name="lab")
    nb.metadata["title"] = title
    body, _ = exporter.from_notebook_node(nb)
    body = _own_inputs(body, nb)
    # nothing from the network: the handout is one file that works offline (no widget
    # manager, no require.js; the lessons use no LaTeX maths)
    body = re.sub(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', "", body)
    body = re.sub(r'<script type="text/x-mathjax-config">.*?</script>', "", body, flags=re.S)
    return body.replace("</head>", PRINT_CSS + "</head>", 1)


def lesson_notebook(path):
    """A lesson executed and prepared for print (static widgets, CUDA blocks)."""
    nb = execute(path)
    static_widgets(nb)
    split_kernel_strings(nb)
    return nb


def bundle(notebooks):
    """One notebook with every lesson, each starting a new printed page."""
    import nbformat

    whole = nbformat.v4.new_notebook(metadata=copy.deepcopy(notebooks[0][1].metadata))
    for k, (name, nb) in enumerate(notebooks):
        cells = copy.deepcopy(nb.cells)
        if k and cells:          # nbconvert writes tags as classes: celltag_lesson-start
            cells[0].metadata["tags"] = [*cells[0].metadata.get("tags", []), "lesson-start"]
        whole.cells.extend(cells)
    return whole


# --------------------------------------------------------------------- PDF

def print_to_pdf(html_path, pdf_path, chromium, timeout=300):
    """Headless Chromium prints ``html_path`` to ``pdf_path`` (A4-ish, no header/footer)."""
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}", "--no-pdf-header-footer",
               "--run-all-compositor-stages-before-draw", "--virtual-time-budget=20000",
               f"--print-to-pdf={pdf_path}", Path(html_path).resolve().as_uri()]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
    if not Path(pdf_path).exists() or Path(pdf_path).stat().st_size == 0:
        raise RuntimeError(f"Chromium did not write {pdf_path}:\n{proc.stdout[-2000:]}")


# --------------------------------------------------------------------- all of it

def build_handouts(out, lessons=None, pdf=True, log=print):
    """Build every handout into ``out``; returns {name: Path} of what was written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written, prepared = {}, []
    for path in lessons or lesson_paths():
        name = Path(path).stem
        log(f"executing {Path(path).name}")
        nb = lesson_notebook(path)
        prepared.append((name, nb))
        target = out / f"{name}.html"
        target.write_text(to_html(nb, name.replace("_", " ")), encoding="utf-8")
        written[name] = target
    bundle_path = out / "workshop.html"
    bundle_path.write_text(to_html(bundle(prepared), "GPU barriers: the workshop"),
                           encoding="utf-8")
    written["workshop"] = bundle_path
    if pdf:
        chromium = find_chromium()
        if chromium is None:
            log("PDF skipped: no Chromium found (Debian: apt-get install chromium; or set "
                "$CHROMIUM); the HTML handouts print from any browser")
        else:
            for name, html_path in list(written.items()):
                pdf_path = html_path.with_suffix(".pdf")
                log(f"printing {pdf_path.name}")
                print_to_pdf(html_path, pdf_path, chromium)
                written[name + ".pdf"] = pdf_path
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "handouts"), help="output folder")
    parser.add_argument("--no-pdf", action="store_true", help="HTML only")
    parser.add_argument("lessons", nargs="*", help="lesson notebooks (default: all)")
    args = parser.parse_args(argv)
    written = build_handouts(args.out, [Path(p) for p in args.lessons] or None,
                             pdf=not args.no_pdf)
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
