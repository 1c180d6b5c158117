"""Where a position of preprocessed source text is in the user's kernel: its line.

Template instances are appended after the kernel text behind a `# N "kernel.cu"` marker
(templates.py), so that a fault inside one names the line of the template's body; every
rewrite of the front end that reports a line asks here.
"""
import re

LINE_MARKER = re.compile(r'^# (\d+) "kernel\.cu"$', re.M)


def line_of(text, pos):
    """The user's line at text[pos]; template instances appended after a `# N "kernel.cu"` marker
    (templates.py) count from N."""
    markers = list(LINE_MARKER.finditer(text, 0, pos))
    if not markers:
        return text.count("\n", 0, pos) + 1
    m = markers[-1]
    return int(m.group(1)) + text.count("\n", m.end() + 1, pos)
