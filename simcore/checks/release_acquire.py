"""The synchronises-with edge of CUDA's memory model, for the race checks (docs/semantics.md,
"Fences and flags").

PTX's memory consistency model orders two threads' accesses through memory in one way besides
barriers: a *release pattern* (a fence F, then a strong write W to a location M: an atomic, or a
volatile store) whose value is read by an *acquire pattern* (a strong read R of M: an atomic, or
a volatile load, then a fence F') makes F synchronise with F': everything before F in the
releasing thread happens before everything after F' in the acquiring one, when both fences'
scopes hold both threads (`__threadfence_block()`: the block; `__threadfence()` and
`__threadfence_system()`: the device). Happens-before is transitive: through barriers of a block
(`__syncthreads()`, `__syncwarp()`), through further hand-offs (a lock passed on from critical
section to critical section), and an atomic read-modify-write on M carries the releases it read
on to whoever reads its value (a release sequence: a ticket counter).

How it is kept: a vector clock over the launch's threads, only in kernels that fence (the
program says so, `Program.fence_scopes`; kernels without fences build nothing of this):

  clock[u, g]  the newest clock of thread g that u has heard of; clock[g, g] is g's own clock,
               which moves on at each of g's fences and barriers. An access records its thread's
               own clock a (Shadow.w_sync / r_sync); it happens before u's next access iff
               clock[u, g] > a.
  released     per thread and scope: its row of `clock` at its last fence (of that scope or a
               wider one), which a strong write after it publishes.
  flags        per granule a strong write published to: the rows readers of its value acquire
               (one for device-scope releases; one per block for releases a block's threads
               can acquire, every release of that block included).
  observed     per thread: the rows its strong reads saw since; its next fence acquires them.

The clocks take launch threads^2 int32 (1 MB at 512 threads, 16 MB at DENSE_LIMIT = 2048);
a larger launch that fences keeps the old rule (the last-block ticket only) and warns that
hand-offs through flags are not checked there.
"""
import numpy as np

DENSE_LIMIT = 2048          # threads of a launch whose vector clocks are kept (16 MB of int32)
DEVICE, BLOCK = "device", "block"


class RowTable:
    """Rows of `clock` kept for some threads only (those that fenced): thread -> row."""

    def __init__(self, n):
        self.n = n
        self.row_of = np.full(n, -1, np.int32)
        self.rows = np.zeros((0, n), np.int32)

    def put(self, threads, rows):
        new = threads[self.row_of[threads] < 0]
        if len(new):
            base = len(self.rows)
            self.rows = np.concatenate([self.rows, np.zeros((len(new), self.n), np.int32)])
            self.row_of[new] = np.arange(base, base + len(new), dtype=np.int32)
        self.rows[self.row_of[threads]] = rows

    def get(self, thread):
        i = self.row_of[thread]
        return None if i < 0 else self.rows[i]


def _published(flags, key):
    """Which granules of `key` a release published to (flags: granule -> rows)."""
    return np.isin(key, np.fromiter(flags, np.int64, len(flags)))


def _join(old, new):
    if old is None:
        return None if new is None else new.copy()
    if new is not None:
        np.maximum(old, new, out=old)
    return old


class ReleaseAcquire:
    """The vector clocks of one launch (see the module docstring)."""

    def __init__(self, nthreads, spb):
        self.n = nthreads
        self.spb = spb
        self.clock = np.zeros((nthreads, nthreads), np.int32)
        self.fenced = np.zeros(nthreads, np.int8)        # 0 never, 1 a block fence, 2 a device fence
        self.released = {DEVICE: RowTable(nthreads), BLOCK: RowTable(nthreads)}
        self.observed = {}                               # thread -> [device row, block row]

    def own(self, threads):
        """The own clocks of `threads` (what an access by each records)."""
        return self.clock[threads, threads]

    def happened_before(self, threads, writers, clocks):
        """The rule: per lane, whether the access recorded as (writer, clock) happens before the
        next access of `threads` (launch-wide numbers; writer -1: a record of several threads,
        which no clock can order)."""
        known = self.clock[threads, np.maximum(writers, 0)]
        return (writers >= 0) & (known > clocks)

    def group_before(self, thread, lo, hi, clock):
        """Whether accesses by threads lo..hi-1 (readers folded into one record, `clock` the
        newest of their clocks) all happen before `thread`'s next access: it has heard of each
        of them (but itself: program order) past that clock."""
        known = self.clock[thread, lo:hi] > clock
        if lo <= thread < hi:
            known[thread - lo] = True
        return bool(known.all())

    def saw_unacquired_release(self, reader, writer):
        """Whether `reader`'s strong reads since its last fence saw a release of `writer` that
        would teach it something about `writer`: a hand-off that lacks only its acquire fence."""
        seen = self.observed.get(reader)
        if seen is None:
            return False
        known = self.clock[reader, writer]
        return any(row is not None and row[writer] > known for row in seen)

    # ---- what moves the clocks
    def fence(self, threads, device_wide):
        """Fences by `threads`: first each acquires what its strong reads observed (a device fence
        every release it saw; a block fence only releases its own block's threads can acquire),
        then its own clock moves on and its row is what its later strong writes release."""
        for g in threads.tolist():
            self._acquire(g, device_wide)
        self.clock[threads, threads] += 1
        rows = self.clock[threads]
        self.released[BLOCK].put(threads, rows)
        if device_wide:
            self.released[DEVICE].put(threads, rows)
        self.fenced[threads] = np.maximum(self.fenced[threads], 2 if device_wide else 1)

    def barrier(self, threads, group):
        """A barrier (or __syncwarp) completed for launch-wide `threads`, in groups (`group`: a key
        per thread, one per block or per warp and mask): every member has then heard of everything
        each of them had heard of, their accesses before it included."""
        if not (group[1:] >= group[:-1]).all():
            order = np.argsort(group, kind="stable")
            threads, group = threads[order], group[order]
        change = np.ones(len(group), bool)
        change[1:] = group[1:] != group[:-1]
        starts = np.flatnonzero(change)
        self.clock[threads, threads] += 1
        joined = np.maximum.reduceat(self.clock[threads], starts, axis=0)
        self.clock[threads] = joined[np.cumsum(change) - 1]

    def releases(self, threads):
        """Which of `threads` a strong write now makes a release (they fenced before it)."""
        return self.fenced[threads] > 0

    def strong_write(self, flags, key, threads, rmw, block_only=False):
        """A strong write to granules `key` (flags: the shadow's table of published rows). A release
        publishes the row of its thread's last fence; an atomic read-modify-write keeps what the
        granule already published (a release sequence), any other write ends it. block_only: a
        _block atomic, strong for its own block's threads alone, publishes to them only."""
        for k, g in zip(key.tolist(), threads.tolist()):
            entry = flags.get(k) if rmw else None
            block = g // self.spb
            if self.fenced[g]:
                if entry is None:
                    entry = flags[k] = [None, {}]
                if not block_only:
                    entry[0] = _join(entry[0], self.released[DEVICE].get(g))
                entry[1][block] = _join(entry[1].get(block), self.released[BLOCK].get(g))
            elif not rmw:
                flags.pop(k, None)

    def plain_write(self, flags, key):
        """A plain write ends what the granules published."""
        for k in key[_published(flags, key)].tolist():
            flags.pop(k, None)

    def strong_read(self, flags, key, threads):
        """A strong read: its thread observes what the granule published (acquired at its next fence)."""
        hit = _published(flags, key)
        for k, g in zip(key[hit].tolist(), threads[hit].tolist()):
            self._observe(flags.get(k), g)

    def atomic(self, flags, key, threads, ticket, block_only=False):
        """An atomic read-modify-write per lane, in lane order (each reads what the lanes before it
        in the instruction wrote): a strong read, then a strong write. ticket (an atomic other
        than atomicCAS): the read acquires what it saw at once, as if a fence followed, because
        the Guide's own threadFenceReduction example (the last block's atomicInc, a barrier, then
        its reads of every block's partial sum) has no fence after the ticket. (A lock's
        atomicCAS still needs its fence.) block_only: a _block atomic, which reads and publishes
        for its own block's threads alone."""
        for k, g in zip(key.tolist(), threads.tolist()):
            self._observe(flags.get(k), g, block_only)
            if ticket:
                self._acquire(g, not block_only)
            self.strong_write(flags, np.array([k]), np.array([g]), rmw=True, block_only=block_only)

    def _acquire(self, g, device_wide):
        """Thread g acquires what its strong reads observed (a block-scope fence: only what its
        own block released)."""
        seen = self.observed.pop(g, None)
        if seen is not None:
            for row in (seen[0] if device_wide else None, seen[1]):
                if row is not None:
                    np.maximum(self.clock[g], row, out=self.clock[g])

    def _observe(self, entry, g, block_only=False):
        if entry is None:
            return
        seen = self.observed.setdefault(g, [None, None])
        if not block_only:
            seen[0] = _join(seen[0], entry[0])
        seen[1] = _join(seen[1], entry[1].get(g // self.spb))
