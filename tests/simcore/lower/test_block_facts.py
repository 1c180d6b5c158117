"""Each basic block carries the facts of its code (simcore/lower/facts.py): which context calls
it makes, whether it touches an array register, what each statement costs the timing model.
The engine's scalar lanes, the serial loop and the performance counters read these facts."""
import ast

import simcore
from simcore.lower.facts import statement_work

SOURCE = r"""
extern "C" __global__ void k(int *out, int n)
{
    int t = threadIdx.x;
    int acc = t * 3 + 1;
    int local[4];
    for (int i = 0; i < 4; i++)
        local[i] = acc + i;
    if (n != 0)
        acc = acc / n;
    out[t] = acc + local[t & 3];
}
"""


def blocks():
    return simcore.RawKernel(SOURCE, "k").program.blocks


def test_a_block_that_stores_to_memory_names_the_store_and_is_not_scalar():
    stores = [b for b in blocks() if "st" in b.facts.context]
    assert stores and not any(b.facts.scalar or b.facts.lane_free for b in stores)


def test_a_block_that_only_divides_is_scalar_with_the_serial_loops_helpers():
    dividing = [b for b in blocks() if b.facts.context & {"idiv"}]
    assert dividing
    for b in dividing:
        assert not b.facts.scalar
        assert b.facts.scalar_with_helpers == (b.facts.context <= {"idiv", "DEFINED", "UNSET"}
                                               and not b.facts.touches_arrays)


def test_a_block_of_register_arithmetic_runs_on_a_scalar_lane():
    assert any(b.facts.scalar and b.code for b in blocks())


def test_a_block_that_touches_a_local_array_is_not_scalar():
    touching = [b for b in blocks() if b.facts.touches_arrays]
    assert touching and not any(b.facts.scalar for b in touching)


def test_every_statement_and_branch_condition_has_its_work():
    for b in blocks():
        assert len(b.facts.work) == len(b.code)
        assert (b.facts.condition is not None) == (b.term.kind == "branch")


def one(line):
    return statement_work(ast.parse(line).body[0])


def test_statement_work_tells_copies_bookkeeping_counters_memory_and_arithmetic_apart():
    assert one("v_x_1 = v_y_2.astype(I4)").kind == "copy"
    assert one("u_s_3 = (u_s_3 | u_t5)").kind == "bookkeeping"
    assert one("v_i_4 = (v_i_4 + K2)").kind == "increment"
    store = one("X.st((v_out_0 + (v_t_1).astype(I8) * 4), (v_a_2 + v_b_3), I4, L, 3, False)")
    assert (store.kind, store.operators) == ("memory", 1)       # the stored sum; the address is free
    arithmetic = one("_t7 = np.where((_t6 > K1), (_t5 - _t4), ~_t3)")
    assert (arithmetic.kind, arithmetic.operators) == ("arithmetic", 4)


def test_a_register_plus_a_float_constant_is_arithmetic_not_a_counter_step():
    # an FADD: no unrolling folds it away, unlike an integer counter's step
    step = statement_work(ast.parse("v_v_4 = (v_v_4 + K2)").body[0], float_constants=frozenset({"K2"}))
    assert (step.kind, step.operators) == ("arithmetic", 1)
    assert statement_work(ast.parse("v_i_4 = (v_i_4 + K3)").body[0], float_constants=frozenset({"K2"})).kind == "increment"


def test_lowering_tells_the_float_constants_from_the_integer_ones():
    src = r"""extern "C" __global__ void k(float *out, int n)
    { float v = out[threadIdx.x]; for (int i = 0; i < n; i++) v += 0.25f; out[threadIdx.x] = v; }"""
    program = simcore.RawKernel(src, "k").program
    kinds = [w.kind for b in program.blocks for w in b.facts.work]
    assert kinds.count("increment") == 1            # i++ only
    assert any(w.kind == "arithmetic" and w.operators == 1 for b in program.blocks for w in b.facts.work)
