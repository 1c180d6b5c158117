"""Kernel signatures without the whole front end, for kernels run only on a GPU.

A kernel outside simcore's subset (printf, templates, ...) can still run with backend="cupy":
NVRTC compiles it, and all the launch needs from us is each parameter's type, to cast the
scalar arguments exactly as the kernel expects them.
"""
import re

import numpy as np

from . import ctype as T
from .preprocess import directives, join_continuations, strip_comments
from ..lower.program import Param

QUALIFIERS = {"const", "volatile", "__restrict__", "restrict", "__restrict", "unsigned_int"}
TYPEDEFS = {"size_t": ["unsigned", "long"], "uint32_t": ["unsigned", "int"], "int32_t": ["int"],
            "uint64_t": ["unsigned", "long", "long"], "int64_t": ["long", "long"], "uint": ["unsigned"],
            "uint8_t": ["unsigned", "char"], "int8_t": ["signed", "char"], "uint16_t": ["unsigned", "short"],
            "int16_t": ["short"], "bool": ["_Bool"], "ptrdiff_t": ["long"]}


# The pointee of `S *` for a struct S this reader does not lay out: any array's bytes do
# (as CuPy, which passes the address).
UNKNOWN_STRUCT = np.dtype({"names": ["unknown_struct"], "formats": [np.uint8]})


class Signature:
    """Stands in for a compiled Program when only the GPU will run the kernel."""

    def __init__(self, name, params):
        self.name = name
        self.params = params
        self.shared = []


def signatures(source, options=(), name_expressions=()):
    lines = source.split("\n")
    defines = {}
    for opt in options:
        if opt.startswith("-D"):
            name, _, value = opt[2:].partition("=")
            defines[name] = (None, value or "1")
    try:
        text = "\n".join(directives(strip_comments(join_continuations(source), lines).split("\n"),
                                     defines, lines))
    except Exception:
        return {}
    instance_names = {}
    if name_expressions:       # template kernels: their instances' signatures, named as listed
        from .templates import expand, has_templates
        if has_templates(text):
            try:
                expanded = expand(text, lines, name_expressions)
                text, instance_names = expanded.text, expanded.names
            except Exception:
                pass
    out = {}
    for m in re.finditer(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(\w+)\s*\(([^)]*)\)", text):
        params = []
        ok = True
        for k, raw in enumerate(p.strip() for p in m.group(2).split(",") if p.strip()):
            if raw == "void":
                continue
            words = re.findall(r"[A-Za-z_]\w*|\*|\[\]", raw)
            is_pointer = "*" in words or "[]" in words
            names = [w for w in words if w not in QUALIFIERS and w not in ("*", "[]")]
            pname = names[-1] if len(names) > 1 else f"arg{k}"
            tnames = names[:-1] if len(names) > 1 else names
            if len(tnames) == 1 and tnames[0] in TYPEDEFS:
                tnames = TYPEDEFS[tnames[0]]
            t = T.from_names(tnames)
            if t is None and is_pointer and len(tnames) == 1:
                t = T.VECTOR_TYPES.get(tnames[0])
                if t is None and tnames[0] not in ("struct",):
                    spelled = ("const " if "const" in words else "") + tnames[0] + " *"
                    params.append(Param(pname, spelled, True, UNKNOWN_STRUCT))
                    continue
            if t is None or t.is_void and not is_pointer:
                ok = False
                break
            dtype = np.dtype(np.uint8) if t.is_void else np.dtype(t.dtype)
            spelled = ("const " if "const" in words else "") + str(t) + (" *" if is_pointer else "")
            params.append(Param(pname, spelled, is_pointer, dtype))
        if ok:
            name = instance_names.get(m.group(1), m.group(1))
            out[name] = Signature(name, params)
    return out
