"""The plugins of one launch, and, per hook, the ones that override it.

The simulator notifies through the lists here (`for hook in plugins.memory_access: hook(...)`),
so a hook no plugin overrides costs one empty-list test. Whether a check is on is decided
here and nowhere else: a plugin is built for a launch when its `wanted(options)` says so.
"""
from .base import Plugin

HOOKS = ("on_wave_start", "on_launch_end", "on_step", "on_memory_access", "on_lane_access",
         "on_lane_reads", "on_fence",
         "on_block_fence", "on_sync_arrive",
         "on_barrier_release", "on_barrier", "on_stalled", "on_out_of_bounds", "on_local_out_of_bounds",
         "on_undefined_use", "on_undefined_store", "on_invalid_mask", "on_divergent_barrier",
         "on_named_barrier_arrival", "on_named_barrier_overfull", "on_barrier_phase_join", "on_barrier_signal",
         "on_barrier_phase_complete", "on_unwaited_phase_complete")


def _overrides(plugin, hook):
    return getattr(type(plugin), hook) is not getattr(Plugin, hook)


class Plugins:
    """The plugins of one launch. Attribute `x` (for hook `on_x`) lists the bound hook methods
    of the plugins that override it, in registration order."""

    def __init__(self, plugins):
        self.all = list(plugins)
        for hook in HOOKS:
            setattr(self, hook[3:], [getattr(p, hook) for p in self.all if _overrides(p, hook)])
        # one lane's access: every plugin that watches accesses, through its own one-lane hook
        # where it has one (else Plugin's, which forwards to on_memory_access)
        self.lane_access = [p.on_lane_access for p in self.all
                            if _overrides(p, "on_memory_access") or _overrides(p, "on_lane_access")]
        self.tracks_shared_writes = any(p.tracks_shared_writes for p in self.all)
        # a lone lane's run of reads told at once (Plugin.on_lane_reads), where every plugin that
        # watches accesses takes them so and at most one does (a refusal then changes nothing);
        # else None: the reads go one by one
        watchers = [p for p in self.all if _overrides(p, "on_memory_access") or _overrides(p, "on_lane_access")]
        self.lane_reads = [p.on_lane_reads for p in watchers] \
            if len(watchers) <= 1 and all(_overrides(p, "on_lane_reads") for p in watchers) else None

    def __iter__(self):
        return iter(self.all)

    def of_type(self, cls):
        """The plugin of class `cls` in this launch, or None."""
        return next((p for p in self.all if isinstance(p, cls)), None)

    # ---- notifications that are never on the hot path (the others: `for hook in plugins.x`)
    def start_wave(self, wave):
        for p in self.all:
            p.wave = wave
        for hook in self.wave_start:
            hook(wave)

    def end_launch(self, launch):
        for hook in self.launch_end:
            hook(launch)

    def stop_every_unordered_conflict(self):
        """Does some plugin stop the launch at every race (Plugin.stops_every_unordered_conflict)?"""
        return any(p.stops_every_unordered_conflict() for p in self.all)


def build_plugins(registered, launch, program, report, options, extra=()):
    """One instance of every registered plugin class this launch wants, then `extra` instances."""
    plugins = [cls(launch, program, report, options) for cls in registered if cls.wanted(options)]
    return Plugins(plugins + list(extra))
