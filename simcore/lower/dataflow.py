"""The one dataflow pass: which registers need a taint shadow, which pointers may be misaligned.

Lowering records every value written to a register (`taint_flows`, `alignment_flows`); a
value's taint is a union of terms, each either always present (a load of shared memory, an
uninitialised declaration) or present only if some register is tracked. A register is
tracked if any value written to it may carry taint: the least fixed point, found by
propagating along the recorded flows until nothing changes. The same for misalignment."""


def tracked_registers(taint_flows):
    """-> set of register names that carry a taint shadow."""
    by_source, tracked, work = {}, set(), []
    for dst, taint in taint_flows:
        for term in taint.terms:
            if term.register is None:
                if dst not in tracked:
                    tracked.add(dst)
                    work.append(dst)
            else:
                by_source.setdefault(term.register, set()).add(dst)
    while work:
        for dst in by_source.get(work.pop(), ()):
            if dst not in tracked:
                tracked.add(dst)
                work.append(dst)
    return tracked


def misaligned_registers(alignment_flows):
    """-> set of pointer register names that may hold a misaligned address."""
    by_source, unaligned, work = {}, set(), []
    for dst, alignment in alignment_flows:
        if alignment.misaligned:
            if dst not in unaligned:
                unaligned.add(dst)
                work.append(dst)
        else:
            for reg in alignment.registers:
                by_source.setdefault(reg, set()).add(dst)
    while work:
        for dst in by_source.get(work.pop(), ()):
            if dst not in unaligned:
                unaligned.add(dst)
                work.append(dst)
    return unaligned
