"""Block order and reconvergence points of a lowered kernel's control-flow graph."""
from .program import Goto


def successors(prog, b):
    term = b.term
    if term.kind == "goto":
        return [term.target]
    if term.kind == "branch":
        return [term.if_false, term.if_true]      # visit the false side first: see number_blocks
    if term.kind == "sync":
        return [prog.sync_sites[term.site].next]
    return []


def number_blocks(prog):
    """Number blocks in reverse post-order and find each branch's reconvergence point.

    Reverse post-order with the false successor visited first puts a loop's body before its
    exit and an if's then-side before its else-side. The engine always runs the lowest
    numbered runnable block first, so lanes that finished a loop or a branch early wait for
    the others, and groups merge at joins. Unreachable blocks are dropped.
    """
    by_id = {b.id: b for b in prog.blocks}
    order, seen = [], {prog.entry}
    stack = [(prog.entry, iter(successors(prog, by_id[prog.entry])))]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(node)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(successors(prog, by_id[nxt]))))
    order.reverse()
    renum = {old: new for new, old in enumerate(order)}
    for old in order:
        b = by_id[old]
        b.id = renum[old]
        if b.term.kind == "goto":
            b.term = Goto(renum[b.term.target])
        elif b.term.kind == "branch":
            b.term.if_true, b.term.if_false = renum[b.term.if_true], renum[b.term.if_false]
    for s in prog.sync_sites:
        if s.next in renum:
            s.next = renum[s.next]
    prog.blocks = [by_id[old] for old in order]
    prog.entry = 0
    find_reconvergence_points(prog)


def postdominators(prog):
    """-> (post-dominator sets per block, plus the virtual exit node n)."""
    n = len(prog.blocks)
    exit_node = n
    succ = [(successors(prog, b) or [exit_node]) for b in prog.blocks]
    full = frozenset(range(n + 1))
    pdom = [full] * n + [frozenset([exit_node])]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(n)):
            new = frozenset([i]) | frozenset.intersection(*[pdom[s] for s in succ[i]])
            if new != pdom[i]:
                pdom[i] = new
                changed = True
    return pdom, full


def find_reconvergence_points(prog):
    """Each branch's immediate post-dominator becomes its join block (ipdom)."""
    blocks = prog.blocks
    exit_node = len(blocks)
    pdom, full = postdominators(prog)

    def trivially_exits(j):
        seen = set()
        while j != exit_node and j not in seen:
            seen.add(j)
            b = blocks[j]
            if b.code:
                return False
            if b.term.kind == "exit":
                return True
            if b.term.kind != "goto":
                return False
            j = b.term.target
        return True

    for b in blocks:
        if b.term.kind != "branch":
            continue
        strict = pdom[b.id] - {b.id}
        if strict == full - {b.id} or not strict:
            b.ipdom = -1          # cannot reach the exit (endless loop): no reconvergence point
            continue
        # the immediate post-dominator is the strict post-dominator closest to b
        ip = max(strict, key=lambda d: len(pdom[d]))
        if ip == exit_node or trivially_exits(ip):
            b.ipdom = -1          # lanes that skip simply exit: nothing to wait for
            b.exit_join = True    # (the stack model still serialises the two sides)
        else:
            b.ipdom = ip
            blocks[ip].is_join = True
            blocks[ip].join_of.append(b.id)
