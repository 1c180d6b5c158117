"""The one dataflow pass: which registers need a taint shadow, which pointers may be misaligned.

Lowering records every value written to a register (`taint_flows`, `alignment_flows`); a
value's taint is a union of terms, each either always present (a load of shared memory, an
uninitialised declaration) or present only if some register is tracked. A register is
tracked if any value written to it may carry taint: the least fixed point, found by
propagating along the recorded flows until nothing changes. The same for misalignment."""


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


def _reached_from(seeds, by_source):
    """The registers in `seeds` and every register a flow leads to from them (the fixed point)."""
    reached, work = set(seeds), list(seeds)
    while work:
        for dst in by_source.get(work.pop(), ()):
            if dst not in reached:
                reached.add(dst)
                work.append(dst)
    return reached
