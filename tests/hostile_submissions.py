"""Submissions of exercise 1 written by an adversarial student (not a test module).

Each trick is a notebook built from the student release: the kernel fill that replaces the
stub line, extra code appended to the answer cell, and cells inserted after it. Every trick
below gave 10/10 for a wrong or empty kernel (or broke other students' grades, leaked the
solution, or held the grader) when `nbgrader autograde` still ran the student's notebook.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

STUB = re.compile(r'^(?P<indent>[ \t]*)__simcore_todo\(.*\);[ \t]*$', re.M)

# Kernel fills (the code that replaces the stub line).
RIGHT = "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();"
# right, but the upper half of the block exits before the reduction's barriers: legal (exited
# threads are not waited for), and the simulator warns about it (SimWarning on stderr)
RIGHT_WARNS = ("tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();\n"
               "if (t >= blockDim.x / 2) return;  // never needed by the reduction")
NO_BARRIER = "tile[t] = (i < n) ? in[i] : 0.0f;"
WRONG_NEUTRAL = "tile[t] = (i < n) ? in[i] : 1.0f;\n__syncthreads();"
BLANK = None  # the stub line stays
HANG = "tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();\nwhile (1) { }"
PRINT_FLOOD = ("tile[t] = (i < n) ? in[i] : 0.0f;\n__syncthreads();\n"
               "for (int k = 0; k < 4096; k++) printf(\"%d %d %d %d\\n\", k, t, k, t);")
MACRO_BOMB = ("\n".join(["#define A0 tile[t] = tile[t];"]
                        + [f"#define A{k} A{k - 1} A{k - 1}" for k in range(1, 21)])
              + "\n" + RIGHT + "\nA20")


def _cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source}


@dataclass
class Trick:
    name: str
    what: str
    kernel: str | None            # the fill; its score is the most the trick may earn
    answer_extra: str = ""        # appended to the answer cell
    inserted: list = field(default_factory=list)  # cells inserted after the answer cell

    def notebook(self, release: dict, root_hint: str = "") -> dict:
        nb = json.loads(json.dumps(release))
        k = next(i for i, c in enumerate(nb["cells"])
                 if c["metadata"].get("nbgrader", {}).get("solution"))
        cell = nb["cells"][k]
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if self.kernel is not None:
            m = STUB.search(src)
            code = "\n".join(m["indent"] + line for line in self.kernel.splitlines())
            src = src[: m.start()] + code + src[m.end():]
        if self.answer_extra:
            src = src.rstrip("\n") + "\n" + self.answer_extra
        cell["source"] = src
        for j, extra in enumerate(self.inserted):
            nb["cells"].insert(k + 1 + j, _cell(extra.replace("{ROOT}", root_hint)))
        return nb


NOOP_CHECK = "def check_kernel(*args, **kwargs):\n    return None\n"

TRICKS = [
    Trick("rebind_in_answer_cell", "check_kernel rebound in the answer cell", BLANK,
          answer_extra=NOOP_CHECK),
    Trick("rebind_in_inserted_cell", "check_kernel rebound in an inserted cell", BLANK,
          inserted=[NOOP_CHECK]),
    Trick("patch_grading_internals", "barrier_course.grading.checks internals patched (prints OK)",
          NO_BARRIER, inserted=[
              "import barrier_course.grading.checks as g\n"
              "g.refuse_unfinished = lambda *a, **k: None\n"
              "g._compile = lambda *a, **k: None\n"
              "g._run_one = lambda *a, **k: None\n"]),
    Trick("input_transformer", "IPython input transformer turns later cells into pass", BLANK,
          inserted=["get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])"]),
    Trick("ast_transformer", "AST transformer empties every later cell", BLANK, inserted=[
        "import ast\n"
        "class Empty(ast.NodeTransformer):\n"
        "    def visit_Module(self, node):\n"
        "        return ast.Module(body=[ast.Pass()], type_ignores=[])\n"
        "get_ipython().ast_transformers.append(Empty())\n"]),
    Trick("fake_rawmodule", "numpy fake for simcore.RawModule", NO_BARRIER, inserted=[
        "import numpy as np, simcore\n"
        "class _FakeParam:\n"
        "    def __init__(self, name): self.name = name\n"
        "class _FakeKernel:\n"
        "    params = [_FakeParam(p) for p in ('in', 'partial', 'n')]\n"
        "    def __call__(self, grid, block, args, shared_mem=0, **kw):\n"
        "        x, partial, n = args\n"
        "        b = block[0]\n"
        "        padded = np.zeros(partial.size * b, np.float32); padded[:int(n)] = x\n"
        "        partial[:] = padded.reshape(partial.size, b).sum(axis=1)\n"
        "class _FakeModule:\n"
        "    def __init__(self, *a, **k): pass\n"
        "    def get_function(self, name): return _FakeKernel()\n"
        "simcore.RawModule = _FakeModule\n"]),
    Trick("redefine_reference", "the reference redefined to expect nothing", WRONG_NEUTRAL,
          inserted=["block_sum_reference = lambda args, n, block: {}\n"]),
    Trick("patch_isclose", "numpy.isclose patched to say yes", WRONG_NEUTRAL, inserted=[
        "import numpy as np\n"
        "np.isclose = lambda a, b, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)\n"]),
    Trick("force_lockstep_nochecks", "wrapper forces schedules=('lockstep',), checks=False",
          NO_BARRIER, inserted=[
              "_real_check = check_kernel\n"
              "def check_kernel(*args, **kwargs):\n"
              "    kwargs.update(schedules=('lockstep',), checks=False, model=None)\n"
              "    return _real_check(*args, **kwargs)\n"]),
    Trick("write_installed_package", "appends a no-op check_kernel to the installed grading.py",
          BLANK, inserted=[
              "import barrier_course.grading.checks as g\n"
              "with open(g.__file__, 'a') as f:\n"
              "    f.write('\\n\\ndef check_kernel(*args, **kwargs):\\n    return None\\n')\n"]),
    Trick("read_solutions_and_gradebook", "prints solutions/ and gradebook.db into its feedback",
          BLANK, inserted=[
              "import glob, os\n"
              "for p in glob.glob('{ROOT}/solutions/*/*.ipynb') + glob.glob('{ROOT}/gradebook.db'):\n"
              "    print(p, open(p, 'rb').read()[:3000])\n"]),
    Trick("python_infinite_loop", "while True in an inserted cell", BLANK,
          inserted=["while True:\n    pass\n"]),
    Trick("python_output_flood", "prints a 1 MB string 4096 times", BLANK,
          inserted=["for _ in range(4096):\n    print('x' * (1 << 20))\n"]),
    Trick("kernel_output_flood", "the kernel printf()s 4096 lines per thread", PRINT_FLOOD),
    Trick("macro_bomb", "20 doubling macros (1.3 KB of source)", MACRO_BOMB),
    Trick("kernel_hang", "the kernel loops forever", HANG),
    Trick("answer_not_a_literal", "the answer cell computes the source in Python", BLANK,
          answer_extra="source = open('/etc/hostname').read() + source\n"),
]

#: honest answers mixed into a class
HONEST = {"right": RIGHT, "right_warns": RIGHT_WARNS, "no_barrier": NO_BARRIER,
          "wrong_neutral": WRONG_NEUTRAL, "blank": BLANK}


def honest(release: dict, fill: str | None) -> dict:
    return Trick("honest", "", fill).notebook(release)
