"""`tasks.py audit`: mutants of each exercise's solution, graded like submissions.

The suite runs the audit (fast mode) on every exercise and fails when a mutant keeps full
marks without a row in the "Audit notes" of solutions/AUTHORING.md saying why it is right,
when a mutant crashes the grader, when the solution loses points, and when a note names a
mutant that no longer survives (a stale reason misleads the next author).
"""
import pytest

import simcore
from barrier_course.grading import audit, mutants
from barrier_course.grading.autograde import AnswerScore, CellScore

KERNEL = r"""
#define N 64
extern "C" __global__ void k(const float *in, float *out, unsigned *count, int n)
{
    __shared__ float s[N];
    int t = threadIdx.x;
    // ### BEGIN SOLUTION
    s[t] = (t < n) ? in[t] : 0.0f;
    __syncthreads();
    float v = s[t];
    unsigned m = __ballot_sync(0xffffffff, t < n);
    for (int k = 0; k < 2; k++) {
        v += __shfl_xor_sync(m, v, 1);
        __syncwarp(m);
    }
    if (__syncthreads_or(v > 0.0f))
        atomicAdd(count, 1u);
    __threadfence();
    out[t] = v;
    // ### END SOLUTION
}
"""
NAMED = r"""
__device__ void bar_sync(int id, int count) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory"); }
extern "C" __global__ void k(float *out)
{
    // ### BEGIN SOLUTION
    bar_sync(1, blockDim.x);
    out[threadIdx.x] = 1.0f;
    // ### END SOLUTION
}
"""


def test_every_rule_finds_its_places_and_every_mutant_compiles():
    found = mutants.mutants(KERNEL) + mutants.mutants(NAMED)
    assert set(mutants.RULES) == {m.rule for m in found}, set(mutants.RULES) - {m.rule for m in found}
    for m in found:
        simcore.RawModule(code=m.source).get_function("k")    # a mutant is a plausible kernel


def test_mutants_change_only_the_solution_region_and_have_unique_ids():
    found = mutants.mutants(KERNEL)
    head, tail = KERNEL.split("// ### BEGIN SOLUTION")[0], KERNEL.split("// ### END SOLUTION")[1]
    assert len({m.id for m in found}) == len(found)
    assert len({m.source for m in found}) == len(found)
    for m in found:
        assert m.source.startswith(head) and m.source.endswith(tail), m.id
        assert m.source != KERNEL
        line_of_change = next(k for k, (a, b) in enumerate(zip(KERNEL.split("\n"), m.source.split("\n")), 1) if a != b)
        assert m.line in (line_of_change, line_of_change + 1), (m.id, line_of_change)


def test_comments_and_strings_are_never_mutated():
    src = KERNEL.replace("out[t] = v;", 'out[t] = v;   // if (a < b) __syncthreads(); atomicAdd(p, 1)\n    printf("x < y\\n");')
    for m in mutants.mutants(src):
        assert "// if (a < b) __syncthreads(); atomicAdd(p, 1)" in m.source
        assert 'printf("x < y\\n");' in m.source


def test_a_mutant_that_truncates_floats_is_made_and_the_ex08_tests_kill_it():
    """The issue's first example: a kernel that turns every input into an int got full marks
    on integer-valued test data."""
    source = mutants.solution_source(audit.notebook("ex08_tune_block_sum"))
    found = [m for m in mutants.mutants(source, ("float_to_int",)) if "float v =" in m.description]
    assert found, [m.id for m in mutants.mutants(source, ("float_to_int",))]
    assert "int v = (i < n) ? in[i] : 0.0f;" in found[0].source


def cell(gid, points, error=None, name=None):
    return CellScore(gid, points, 3.0, "passed" if error is None else "failed", error=error, error_name=name)


@pytest.mark.parametrize("score,verdict", [
    (AnswerScore([cell("a", 3.0), cell("b", 3.0)]), "survived"),
    (AnswerScore([cell("a", 0.0, "Kernel 'k' wrong", "AssertionError"),
                  cell("b", 0.0, "This test did not run.", "GradingError")]), "killed"),
    (AnswerScore([cell("a", 0.0, "list index out of range", "IndexError")]), "crashed"),
    (AnswerScore([cell("a", 0.0, "x", "GradingLimit")], timed_out=True, fault="Grading stopped after 420 s"), "limit"),
    (AnswerScore([cell("a", 0.0, "x", "GradingError")], fault="The grader's interpreter stopped unexpectedly"), "crashed"),
])
def test_a_graded_mutant_is_classified_by_what_the_grader_did(score, verdict):
    assert audit._classify(score)[0] == verdict


def test_the_notes_table_is_read_per_assignment():
    notes = audit.equivalence_notes()
    assert notes, "solutions/AUTHORING.md has no Audit notes rows"
    for (assignment, mutant_id), reason in notes.items():
        assert assignment in audit.assignments(), assignment
        assert mutant_id.split("@")[0] in mutants.RULES, mutant_id
        assert len(reason) > 20, (mutant_id, reason)


def test_the_command_line_refuses_an_unknown_assignment_or_rule(capsys):
    with pytest.raises(SystemExit) as info:
        audit.main(["ex99_nothing"])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        audit.main(["ex01_tail_handling", "--rules", "delete_everything"])
    assert "unknown rules" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("assignment", audit.assignments())
def test_no_mutant_survives_unexplained(assignment):
    # the solution's own full marks are checked by its exercise's test module
    report = audit.audit(assignment, fast=True, jobs=2, grade_solution=False)
    text = audit.format_report(report)
    print(text)
    assert report.solution_ok, text
    assert report.results, text
    assert not report.by("crashed"), text
    assert not report.unexplained, text
    assert not report.stale_notes, text
