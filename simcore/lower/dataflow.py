"""The one dataflow pass: which registers need a taint shadow, which pointers may be misaligned,
which plain reads are a CAS loop's guess.

Lowering records every value written to a register (`taint_flows`, `alignment_flows`); a
value's taint is a union of terms, each either always present (a load of shared memory, an
uninitialised declaration) or present only if some register is tracked. A register is
tracked if any value written to it may carry taint: the least fixed point, found by
propagating along the recorded flows until nothing changes. The same for misalignment."""
import re

# the registers (v_...) and temporaries (_t...) a piece of generated code names (u_ taint
# shadows are not values)
VALUE_NAME = re.compile(r"\b(?:v_\w+|_t\d+)\b")


def tracked_registers(taint_flows):
    """-> set of register names that carry a taint shadow."""
    by_source, always = {}, set()
    for dst, taint in taint_flows:
        for term in (leaf for t in taint.terms for leaf in t.leaves()):
            if term.register is None:
                always.add(dst)
            else:
                by_source.setdefault(term.register, set()).add(dst)
    return _reached_from(always, by_source)


def misaligned_registers(alignment_flows):
    """-> set of pointer register names that may hold a misaligned address."""
    by_source, misaligned = {}, set()
    for dst, alignment in alignment_flows:
        if alignment.misaligned:
            misaligned.add(dst)
        else:
            for reg in alignment.registers:
                by_source.setdefault(reg, set()).add(dst)
    return _reached_from(misaligned, by_source)


def sites_feeding(value_flows, loaded_by, codes):
    """-> the sites of the loads (and atomics) whose value may flow into any of `codes` (pieces of
    generated code): into what an atomicCAS compares with, the reads a CAS loop guesses with
    (`old = *p; do { assumed = old; old = atomicCAS(p, assumed, ...) } ...`); into a condition
    that may end a loop, the reads a wait loop polls. value_flows: name -> names its value is
    computed from (registers v_..., temporaries _t...); loaded_by: a load's or atomic's temporary
    -> its site. Backwards from the codes, through every assignment (a loop's back edge
    included: the closure is taken once the whole kernel is lowered)."""
    seeds = {name for code in codes for name in VALUE_NAME.findall(code)}
    reached = _reached_from(seeds, value_flows)
    return {loaded_by[name] for name in reached if name in loaded_by}


def _reached_from(seeds, by_source):
    """The registers in `seeds` and every register a flow leads to from them (the fixed point)."""
    reached, work = set(seeds), list(seeds)
    while work:
        for dst in by_source.get(work.pop(), ()):
            if dst not in reached:
                reached.add(dst)
                work.append(dst)
    return reached
