"""The compilation environment of NVRTC (what CuPy compiles with), read from one table.

A kernel can look at its compiler: `#ifdef __CUDACC_RTC__`, `#if __cplusplus >= 201703L`,
`#include <cstdio>`. If simcore answered any of those differently from NVRTC, an answer could
run one kernel on the simulator and another on the GPU, and be graded on the wrong one. So the
predefined macros and the headers NVRTC finds come from `simcore/data/nvrtc_environment.json`,
measured on the GPU (tools/nvrtc_environment.py writes conformance/results/nvrtc_environment.json;
this table is a copy of it) and diffed against that measurement by tests/simcore/frontend/test_nvrtc_environment.py; nothing else in simcore defines a macro a kernel can test.

The names simcore itself generates while rewriting CUDA into C (`__cg_*` for Cooperative
Groups, `__cuda_*` vector-type tags, `__simcore_*` helpers, `__u_*` shadow registers) are
reserved: a kernel that writes one gets NVRTC's answer, "identifier is undefined"
(:func:`check_reserved_names`).
"""
import functools
import json
import re
from importlib.resources import files

from ..errors import CompileError
from .source_lines import line_of

# the package's data folder, wherever in the package this module lies
TABLE = files("simcore") / "data" / "nvrtc_environment.json"

#: Prefixes of the names simcore generates (preprocess, cooperative_groups, lowering).
RESERVED_PREFIXES = ("__cg_", "__cuda_", "__simcore_", "__u_")
#: The one reserved-looking name a kernel may contain: the exercise stub (the grader refuses it
#: with its own message before anything is compiled; see barrier_course.grading.checks.STUB_MARKER).
STUB = "__simcore_todo"

_RESERVED = re.compile(r'"(?:\\.|[^"\\])*"|\b(?:%s)\w*' % "|".join(map(re.escape, RESERVED_PREFIXES)))


@functools.lru_cache(maxsize=None)
def table():
    """The environment table (parsed once)."""
    return json.loads(TABLE.read_text(encoding="utf-8"))


def _definition(name, entry):
    """A table entry -> simcore's macro definition (params or None, replacement text).

    Two kinds stay their own name (defined, so `#ifdef` answers as NVRTC does, but left in the
    text): NVRTC's spellings of CUDA's keywords (`__global__` is `__attribute__((global))`
    there; simcore's own CUDA pass reads the keyword), and function-like macros, whose bodies
    the table does not hold (simcore implements the ones it supports, `__launch_bounds__`, as
    constructs; any other stays a call the compiler then names)."""
    value = entry if isinstance(entry, str) else entry.get("value")
    if value is None or "__attribute__" in value or "__declspec" in value:
        return (None, name)
    return (None, value)


def predefined_macros(options=()):
    """{name: (params, body)}: NVRTC's predefined macros for these compiler options (CuPy's
    `options`: `-std=c++NN` / `--std=` changes __cplusplus; -D/-U are applied by the caller)."""
    env = table()
    macros = {name: _definition(name, entry) for name, entry in env["macros"].items()}
    for opt in options:
        m = re.fullmatch(r"--?std=(\S+)", opt)
        if m:
            value = env["dialects"].get(m.group(1))
            if value is None:
                raise CompileError(f"compiler option {opt!r}: NVRTC knows the dialects "
                                   + ", ".join(env["dialects"]), construct="options")
            macros["__cplusplus"] = (None, value)
    return macros


def header_found(name):
    """Does NVRTC, with CuPy's include path, find `#include <name>`?"""
    return name in table()["headers"]


def check_reserved_names(text, lines):
    """Refuse a name simcore generates when the student's own (preprocessed) source uses it:
    NVRTC has no such name, so there it is an undefined identifier."""

    for m in _RESERVED.finditer(text):
        word = m.group(0)
        if word.startswith('"') or word == STUB:
            continue
        line = line_of(text, m.start())
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        source_line = lines[line - 1] if 0 < line <= len(lines) else None
        raise CompileError(f'identifier "{word}" is undefined (names beginning with '
                           f'{next(p for p in RESERVED_PREFIXES if word.startswith(p))} are simcore\'s own, not '
                           "CUDA's: NVRTC does not know them either)", line=line, column=column, construct=word,
                           source_line=source_line)
