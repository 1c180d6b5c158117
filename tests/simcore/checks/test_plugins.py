"""The plugin interface: what a check or recorder is told while a launch runs."""
import numpy as np
import pytest

import simcore
import simcore.runtime.runner
from simcore.checks import Plugin, Plugins, RaceDetector
from simcore.plugins import REGISTERED, TraceRecorder

SRC = r"""
extern "C" __global__ void stage(float *out, const float *in) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    __syncthreads();
    out[t] = tile[63 - t];
    __threadfence();
    atomicAdd(&out[64], 1.0f);
}
"""


class Recorder(Plugin):
    """Counts what it is told (a plugin as a performance-counter collector would write it)."""

    @classmethod
    def wanted(cls, options):
        return True

    def __init__(self, *args):
        super().__init__(*args)
        self.events = []

    def on_wave_start(self, wave):
        self.events.append(("wave", wave.first_block, wave.nblk))

    def on_step(self, pc, lanes):
        self.events.append(("step", pc, len(self.wave.lane_index(lanes))))

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        threads = self.wave.slot_thread[lanes]
        self.events.append(("mem", region.kind, region.name, kind, size, list(offsets), list(threads)))

    def on_fence(self, lanes):
        self.events.append(("fence", len(lanes)))

    def on_sync_arrive(self, sync, lanes):
        self.events.append(("arrive", sync.name, len(self.wave.lane_index(lanes))))

    def on_barrier_release(self, sync, lanes):
        self.events.append(("release", sync.name, len(lanes)))

    def on_barrier(self, sync, lanes):
        self.events.append(("barrier", sync.name, len(lanes)))

    def on_launch_end(self, launch):
        launch.recorded = self.events


@pytest.fixture
def with_recorder(monkeypatch):
    monkeypatch.setattr(simcore.runtime.runner, "REGISTERED", REGISTERED + (Recorder,))


def run_stage(**kw):
    k = simcore.RawModule(code=SRC).get_function("stage")
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(65, np.float32)
    k((1,), (64,), (out, x), **kw)
    return k.last_launch, out, x


def test_hooks_see_steps_accesses_and_barriers(with_recorder):
    launch, out, x = run_stage()
    ev = launch.recorded
    assert ev[0] == ("wave", 0, 1)
    steps = [e for e in ev if e[0] == "step"]
    assert steps and all(e[2] == 64 for e in steps)       # convergent: every step runs all lanes
    mem = [e for e in ev if e[0] == "mem"]
    shared_writes = [e for e in mem if e[1] == "shared" and e[3] == "write"]
    assert len(shared_writes) == 1
    _, _, name, _, size, offsets, threads = shared_writes[0]
    assert name == "tile" and size == 4
    assert offsets == [4 * t for t in range(64)] and threads == list(range(64))
    shared_reads = [e for e in mem if e[1] == "shared" and e[3] == "read"]
    assert shared_reads[0][5] == [4 * (63 - t) for t in range(64)]
    assert [e[3] for e in mem if e[1] == "global"] == ["read", "write", "atomic"]
    sync = [e for e in ev if e[0] in ("arrive", "release", "barrier")]
    assert sync == [("arrive", "__syncthreads", 64), ("release", "__syncthreads", 64),
                    ("barrier", "__syncthreads", 64)]
    assert ("fence", 64) in ev
    # the order of events follows the kernel: the barrier comes between the two shared accesses
    assert ev.index(shared_writes[0]) < ev.index(sync[0]) < ev.index(shared_reads[0])
    assert out[0] == x[63] and out[64] == 64


def test_launch_end_is_told_when_the_launch_faults(with_recorder):
    src = SRC.replace("tile[63 - t]", "tile[64 - t]")
    k = simcore.RawModule(code=src).get_function("stage")
    with pytest.raises(simcore.OutOfBounds):
        k((1,), (64,), (np.zeros(65, np.float32), np.zeros(64, np.float32)))
    assert any(e[0] == "mem" for e in k.last_launch.recorded)


class Nothing(Plugin):
    pass


class OnlyAccesses(Plugin):
    def on_memory_access(self, *args):
        pass


def test_a_hook_lists_only_the_plugins_that_override_it():
    plugins = Plugins([Nothing(None, None, None, None), OnlyAccesses(None, None, None, None)])
    assert len(plugins.memory_access) == 1
    assert plugins.step == [] and plugins.fence == [] and plugins.barrier == []


def test_the_launch_options_decide_which_plugins_are_built(with_recorder, monkeypatch):
    built = []
    real = simcore.runtime.runner.build_plugins

    def spy(*args, **kw):
        plugins = real(*args, **kw)
        built.append({type(p) for p in plugins})
        return plugins
    monkeypatch.setattr(simcore.runtime.runner, "build_plugins", spy)
    run_stage(checks=False)
    run_stage(checks=["race"], trace=True)
    def traces(kinds):       # the trace recorder, or the replay recorder that extends it
        return any(issubclass(k, TraceRecorder) for k in kinds)
    assert RaceDetector not in built[0] and not traces(built[0])
    assert RaceDetector in built[1] and traces(built[1])


@pytest.mark.parametrize("check", simcore.CHECKS)
def test_every_launch_check_is_owned_by_one_registered_plugin(check):
    owners = [cls for cls in REGISTERED if check in cls.checks]
    assert len(owners) == 1, f"check {check!r} is implemented by {owners}"


def test_only_the_plugins_of_checks_that_are_on_are_built(with_recorder, monkeypatch):
    built = []
    real = simcore.runtime.runner.build_plugins
    monkeypatch.setattr(simcore.runtime.runner, "build_plugins",
                        lambda *a, **kw: built.append(real(*a, **kw)) or built[-1])
    for check in simcore.CHECKS:
        run_stage(checks=[check])
        owners = {type(p) for p in built[-1]} - {Recorder}
        assert len(owners) == 1 and check in owners.pop().checks


def test_a_run_of_chosen_blocks_with_an_extra_plugin():
    """What a profiler does: build its plugin for the launch, run only some blocks (each range
    one wave, with its real blockIdx), then read what the plugin collected."""
    from simcore.launch import Launch, launch_options, marshal
    from simcore.runtime.runner import run_launch
    src = r"""extern "C" __global__ void ids(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x; }"""
    k = simcore.RawModule(code=src).get_function("ids")
    out = np.full(4 * 32, -1, np.int32)
    launch = Launch("ids", (4, 1, 1), (32, 1, 1), 0, "sim")
    engine = run_launch(k.program, launch, marshal(k, (out,)), launch_options(checks=False),
                        extra_plugins=(Recorder,), block_ranges=[(2, 1)])
    rec = engine.plugins.of_type(Recorder)
    assert [e for e in rec.events if e[0] == "wave"] == [("wave", 2, 1)]
    assert launch.recorded is rec.events and launch.steps > 0
    assert (out[64:96] == 2).all() and (out[:64] == -1).all() and (out[96:] == -1).all()


def test_every_hook_of_the_base_class_is_dispatched():
    from simcore.checks import HOOKS
    assert {name for name in dir(Plugin) if name.startswith("on_")} == set(HOOKS)
