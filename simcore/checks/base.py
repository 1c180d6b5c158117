"""The plugin interface: what the simulator tells the checks and recorders while a launch runs.

In the spirit of Oclgrind's Plugin.h: the engine, the memory and sync resolution only *notify*;
every check (races, never-written shared memory, undefined values, masks, named barriers, ...)
and every recorder (the trace) is a `Plugin` that overrides the hooks it needs. A hook that no
registered plugin overrides costs nothing: `Plugins` (registry.py) keeps, per hook, the list of
plugins that override it, and the simulator skips empty lists.

Arguments the hooks share:
  lanes   the wave's slots concerned: a slice or an int array of slot numbers (index the wave's
          per-slot arrays with it directly; `wave.lane_index(lanes)` gives an int array)
  site    a memory or intrinsic site: `program.sites[site]` has .line, .column, .text
  sync    a sync site (`program.sync_sites[i]`): .op ('bar', 'syncwarp', 'shfl', 'vote', 'reduce',
          'match'), .point (its kind), .name, .line, .mode, .block_wide, .id
  region  a memory region (memory.Region): .kind ('global' | 'shared'), .name, .id, .nbytes, .dtype
The wave (`self.wave`, set before `on_wave_start`) holds the lane state: per slot `pc`, `st`
(RUN, BAR, JOIN, EXIT, PARK from simcore.runtime.context), `site`, `slot_block` (block within the
wave; add `first_block` for the launch-wide block), `slot_thread`, `slot_warp`, `slot_lane`,
registers `R`; and `steps` (steps run so far in the launch).

The hooks report facts, never verdicts: a check hook (`on_*` under "misuse found" and "barrier
phases") tells what the simulator met (an access outside its array, a mask that cannot complete,
arrivals at a named barrier); the plugin owning the check applies its rule and raises its fault
with its own message (through `self.report.raise_`, which names threads and lines), or returns
to let the launch go on as it would on hardware. A new check is one file (rule, messages, fault)
and one row in plugins.REGISTERED; `CHECKS` and the fault kinds come from there.
"""
import numpy as np


class Plugin:
    # Launch checks (names in simcore.CHECKS) that switch this plugin on; a plugin is built
    # for a launch when one of them is on (see `wanted`).
    checks = ()
    # The fault a check raises (errors.KernelFault subclass; its `kind` is the report's kind).
    fault = None
    # Whether memory must remember which shared-memory granules were written (never-written
    # shared memory then reads as undefined).
    tracks_shared_writes = False

    @classmethod
    def wanted(cls, options):
        """Whether this launch needs the plugin. options: the launch's module.Options."""
        return any(options.checks.get(name) for name in cls.checks)

    def __init__(self, launch, program, report, options):
        self.launch = launch          # module.Launch: grid, block, num_blocks, ... (the record)
        self.program = program        # program.Program: blocks, sites, sync_sites
        self.report = report          # report.Reporter: raises faults, names threads
        self.options = options        # module.Options: checks, schedule, model, ...
        self.wave = None              # the running wave (wave.Wave), set before on_wave_start

    def enabled(self, check):
        """Is launch check `check` on (for a plugin that implements several)?"""
        return bool(self.options.checks.get(check))

    # ---------------------------------------------------------------- launch and waves
    def on_wave_start(self, wave):
        """A wave of blocks starts (fresh shared memory, every slot at the kernel's entry)."""

    def on_launch_end(self, launch):
        """The launch ended, normally or by a fault (called from a finally): store results on
        `launch` (the trace recorder sets launch.trace)."""

    # ---------------------------------------------------------------- execution
    def on_step(self, pc, lanes):
        """Before basic block `pc` (`program.blocks[pc]`: .lines, .first_line, .code) runs for
        `lanes`; the wave's state is still the state before the step."""

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        """Before an access. offsets: byte offsets into the region, one per lane (int64 array);
        size: bytes per lane; kind: 'read' | 'write' | 'atomic' | 'cas'. For shared memory the
        row is the block of each lane (`wave.slot_block[lanes]`). Lanes out of bounds are
        already left out."""

    def on_lane_access(self, region, offset, size, kind, lanes, slot, site):
        """The same notice for an access by one lane (a lone thread's loop), in plain integers:
        offset: its byte offset, slot: its slot (lanes: that slot as the caller gave it). A
        plugin that watches accesses need not override it: by default it is on_memory_access
        with one-element arrays."""
        self.on_memory_access(region, np.array([offset], np.int64), size, kind, lanes, site)

    def on_lane_reads(self, region, offsets, size, lanes, slot, site):
        """One lane's reads at one site, at `offsets` (an array, in program order), told at once
        (the serial loop's run of a reading loop). -> True when they were handled as that many
        on_lane_access calls would; False, with nothing changed, to have them made one by one. A
        plugin that watches accesses and does not override this gets them one by one."""
        return False

    def on_fence(self, lanes):
        """__threadfence() or __threadfence_system() by `lanes` (an int array)."""

    def on_block_fence(self, lanes):
        """__threadfence_block() by `lanes` (an int array)."""

    # ---------------------------------------------------------------- sync points
    def on_sync_arrive(self, sync, lanes):
        """`lanes` arrived at sync point `sync` (a barrier or a warp collective) and wait there."""

    def on_barrier_release(self, sync, lanes):
        """A barrier completes: every arrival is in; `lanes` are about to go on (their state is
        still BAR)."""

    def on_barrier(self, sync, lanes):
        """`lanes` passed a point that orders memory: a barrier (__syncthreads*, bar.sync), a
        bar.arrive, or __syncwarp. Their barrier or warp epoch has moved on."""

    def on_stalled(self):
        """No lane can run: pending sync points are about to be resolved. A check that held a
        report back until the running threads stop raises it here."""

    # ---------------------------------------------------------------- misuse found (checks)
    def on_out_of_bounds(self, region, offsets, size, bad, lanes, site, kind):
        """An access outside its array (bad: which lanes); the bad lanes are then skipped."""

    def on_local_out_of_bounds(self, index, length, lanes, site):
        """An index outside a per-thread local array; the bad lanes are then skipped."""

    def on_undefined_use(self, taint, lanes, site, what):
        """An undefined value decides control flow or an address. taint: per lane, bits of
        memory.UNDEF_SHUFFLE, UNDEF_SHARED, UNDEF_LOCAL (0: defined)."""

    def on_undefined_store(self, taint, region, lanes, site):
        """An undefined value is stored to memory (taint as for on_undefined_use)."""

    def on_invalid_mask(self, lanes, mask, warp, own_ok, bits, named_live, same_site):
        """A warp collective cannot complete as called: `lanes` of wave warp `warp` called it with
        `mask`; own_ok: per lane, whether its mask names itself; bits: the lanes that arrived;
        named_live: the live lanes the mask names; same_site: whether they all run one intrinsic.
        If no plugin raises, the collective completes anyway (reads from absent lanes are
        undefined), as it might on hardware."""

    def on_divergent_barrier(self, block, lanes):
        """The threads of `block` (in the wave) are all at barrier 0, at different call sites; the
        barrier then completes as it would on hardware."""

    # ---------------------------------------------------------------- barrier phases
    def on_named_barrier_arrival(self, block, bar_id, lanes, counts, live_in_block):
        """`lanes` of `block` wait at barrier `bar_id` (bar.sync / bar.arrive with an id, or
        barrier 0 once counts are in play), before they are counted: counts per lane (int64; -1:
        none given, the block's live threads, `live_in_block`). The phase's open state is
        `wave.named` (.count, .arrived per block and id)."""

    def on_named_barrier_overfull(self, block, bar_id, lanes, arrivals, count):
        """With `lanes`, `arrivals` threads are in one phase of `bar_id` whose count is `count`
        (fewer): the phase completes at its count-th arrival, the others wait for the next."""

    def on_barrier_phase_join(self, block, bar_id, lanes, count):
        """`lanes` of `block` join the open phase of barrier `bar_id` (0-15), count `count`
        (kernels with named barriers only)."""

    def on_barrier_signal(self, block, bar_id, lanes, site_id):
        """`lanes` of `block` arrived at `bar_id` with bar.arrive (sync site `site_id`): counted
        in its open phase, they go on without waiting."""

    def on_barrier_phase_complete(self, bar_id, lanes):
        """A phase of `bar_id` (0: a block barrier) completed in the blocks of `lanes`, which are
        its waiters and are about to go on."""

    def on_unwaited_phase_complete(self, block, bar_id):
        """A phase of `bar_id` in `block` completed with bar.arrive arrivals alone: nobody waited."""

    # ---------------------------------------------------------------- what the runtime may ask
    def stops_every_unordered_conflict(self):
        """Does this plugin stop the launch at every pair of plain accesses to one word by two
        threads, one of them a write, that barriers and warp syncs do not order (a race)? Then,
        in a launch still running, threads have handed values to each other only through
        barriers and atomics (Memory.atomics counts those): where no atomic ran, what each
        thread read between two barriers was the same in every order of the threads
        (watchdog.py: a loop of barriers that repeats is endless in every order)."""
        return False
