"""Exercise 1 on a real GPU (marked gpu; skipped with the reason where there is none).

The reference solution must pass the grader's GPU runs, and wrong answers that cannot hang
must give wrong sums on the GPU too: the exercise's bugs are real, not simulator artefacts.
(The original guarded fill is left out here: on a GPU it may hang the launch. On an H200 it
gave wrong sums in 37 of 80 launches and compute-sanitizer's synccheck reported "Barrier
error detected. Divergent thread(s) in warp".)
"""

import ast
import json

import numpy as np
import pytest

from course_testing import ROOT

pytestmark = pytest.mark.gpu

NB = ROOT / "solutions" / "ex01_tail_handling" / "ex01_tail_handling.ipynb"


@pytest.fixture(scope="module")
def exercise():
    from barrier_course.grading.checks import gpu_status

    ok, why = gpu_status()
    if not ok:
        print(f"skipping GPU tests: {why}")
        pytest.skip(f"no usable GPU: {why}")
    cells = {c["metadata"].get("nbgrader", {}).get("grade_id"): "".join(c["source"])
             for c in json.loads(NB.read_text())["cells"]}
    ns = {}
    exec(cells["setup"], ns)
    exec(cells["kernel_source"], ns)
    tree = ast.parse((ROOT / "tests" / "barrier_course" / "grading" / "test_grading_workflow.py").read_text())
    answers = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                   and getattr(n.targets[0], "id", "") == "ANSWERS")
    return ns, answers


def _variant(solution, answer):
    a = solution.index("// ### BEGIN SOLUTION")
    b = solution.index("// ### END SOLUTION") + len("// ### END SOLUTION")
    body = "\n".join("    " + line for line in answer.strip("\n").splitlines()).lstrip()
    return solution[:a] + body + solution[b:]


def test_solution_passes_on_the_gpu(exercise):
    from barrier_course.grading.checks import check_kernel

    ns, _ = exercise
    check_kernel(ns["source"], "block_sum", make_args=ns["block_sum_args"],
                 reference=ns["block_sum_reference"], on_gpu=True)


@pytest.mark.parametrize("name", ["wrong_index", "wrong_neutral"])  # deterministic bugs
def test_wrong_answer_is_wrong_on_the_gpu(exercise, name):
    import simcore

    ns, answers = exercise
    kern = simcore.RawModule(code=_variant(ns["source"], answers[name]),
                             backend="cupy").get_function("block_sum")
    wrong = 0
    for block in (32, 64, 128, 256):
        for n in (block // 2 + 3, 2 * block + 1, 5 * block + 37):
            for rep in range(5):
                grid, args, shared = ns["block_sum_args"](n, block, np.random.default_rng([rep, n, block]))
                want = ns["block_sum_reference"](args, n, block)["partial"]
                kern(grid, (block,), args, shared_mem=shared)
                wrong += not np.array_equal(args[1], want)
    assert wrong > 0, f"{name} gave right sums in every GPU launch"
