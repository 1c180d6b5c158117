"""The timing model's validation sets: the held-out set is new, was measured in full on the H200
with right outputs, and every measured sweep still has its row in the kernels table."""
import json
import pathlib

import numpy as np
import pytest

from barrier_course.lessons import validation_kernels

ROOT = pathlib.Path(__file__).resolve().parents[3]
MEASUREMENTS = sorted((ROOT / "course/data").glob("h200-timing-sweeps*.json"))


def _measured():
    return {s["name"]: s for path in MEASUREMENTS for s in json.loads(path.read_text())["sweeps"]}


def test_every_sweep_name_is_used_once_so_a_held_out_row_cannot_shadow_an_earlier_one():
    names = [s.name for s in validation_kernels.SWEEPS]
    assert len(names) == len(set(names))


def test_the_held_out_set_runs_kernels_at_sizes_no_earlier_set_measured():
    earlier = {s.name for s in validation_kernels.SWEEPS if s.role != validation_kernels.heldout()[0].role}
    held = validation_kernels.heldout()
    assert 16 <= len(held) <= 24
    assert not earlier & {s.name for s in held}


def test_every_held_out_sweep_was_measured_at_every_block_size_with_right_outputs():
    measured = _measured()
    for sweep in validation_kernels.heldout():
        runs = measured[sweep.name]["runs"]
        assert sorted(r["block"] for r in runs) == sorted(sweep.blocks), sweep.name
        assert not [r["block"] for r in runs if "check_error" in r], sweep.name


def test_every_measured_sweep_has_its_row_in_the_kernels_table():
    table = {s.name for s in validation_kernels.SWEEPS}
    assert set(_measured()) <= table


def test_the_held_out_set_runs_kernels_no_earlier_set_ran():
    held = validation_kernels.heldout()
    earlier = {s.kernel for s in validation_kernels.SWEEPS if s.role not in (held[0].role, "microbench")}
    assert not earlier & {s.kernel for s in held}


def test_no_other_sweep_microbenchmarks_included_runs_a_held_out_kernel_or_its_source():
    """A rule's parameters come from microbenchmarks: one that ran a held-out kernel (under its
    own name or another) would have shown that kernel's times before the rules were frozen."""
    held = validation_kernels.heldout()
    others = [s for s in validation_kernels.SWEEPS if s.role != held[0].role]
    assert not {s.kernel for s in others} & {s.kernel for s in held}
    assert not {s.source for s in others} & {s.source for s in held}


def test_the_held_out_set_is_the_seventh_and_covers_the_shapes_the_course_uses():
    held = validation_kernels.heldout()
    assert {s.role for s in held} == {"heldout7"}
    sources = " ".join(s.source for s in held)
    for construct in ("atomicAdd", "atomicMax", "atomicMin", "__syncthreads", "__shfl_xor_sync", "__shfl_down_sync",
                      "float4", "float2", "int2", "return;", "gridDim.x"):
        assert construct in sources, construct


def test_the_next_held_out_set_is_new_and_covers_the_shapes_the_course_uses():
    """heldout10: nothing else runs its kernels or sources (the microbenchmarks included), and it is
    still blind on the H200: it was measured on the H100 only (round 12, h100-timing-sweeps10.json)."""
    nxt = validation_kernels.next_heldout()
    assert {s.role for s in nxt} == {"heldout10"} and 16 <= len(nxt) <= 24
    others = [s for s in validation_kernels.SWEEPS if s.role != "heldout10"]
    assert not {s.kernel for s in others} & {s.kernel for s in nxt}
    assert not {s.source for s in others} & {s.source for s in nxt}
    h200 = {s["name"] for path in (ROOT / "course/data").glob("h200-timing-sweeps*.json")
            for s in json.loads(path.read_text())["sweeps"]}
    assert not h200 & {s.name for s in nxt}
    sources = " ".join(s.source for s in nxt)
    for construct in ("atomicAdd", "atomicOr", "__syncthreads", "__syncthreads_count", "__syncthreads_or",
                      "__shfl_down_sync", "float2", "int2", "double", "unsigned long long", "return;",
                      "gridDim.x"):
        assert construct in sources, construct


def test_every_check_of_the_next_held_out_set_accepts_what_the_simulator_computes_at_a_small_size():
    """A wrong numpy check would make every GPU point of the set report `check_error`; each
    sweep is run here on the simulator at 1/64 of its size (1/8 for the matmul and the transpose)."""
    small = []
    validation_kernels._heldout10_rows(small.append, shift=6)
    assert [s.name for s in small] == [s.name for s in validation_kernels.next_heldout()]
    _check_on_the_simulator(small)


def test_heldout11_is_new_and_covers_the_shapes_the_course_uses():
    """heldout11: nothing else runs its kernels or sources (the microbenchmarks included), and it is
    blind on the H200: no H200 measurement file holds any of its sweeps, and of the H100's only
    h100-timing-sweeps11.json (measured 2026-12-07 after the round-14 rules were frozen, every
    sweep of the set)."""
    h11 = validation_kernels.heldout11()
    assert {s.role for s in h11} == {"heldout11"} and 16 <= len(h11) <= 24
    assert 100 <= sum(len(s.blocks) for s in h11) <= 130
    others = [s for s in validation_kernels.SWEEPS if s.role != "heldout11"]
    assert not {s.kernel for s in others} & {s.kernel for s in h11}
    assert not {s.source for s in others} & {s.source for s in h11}
    frozen_h100 = ROOT / "course/data/h100-timing-sweeps11.json"
    measured = {s["name"] for pattern in ("h200-timing-sweeps*.json", "h100-timing-sweeps*.json")
                for path in (ROOT / "course/data").glob(pattern) if path != frozen_h100
                for s in json.loads(path.read_text())["sweeps"]}
    assert not measured & {s.name for s in h11}
    assert {s["name"] for s in json.loads(frozen_h100.read_text())["sweeps"]} == {s.name for s in h11}
    sources = " ".join(s.source for s in h11)
    for construct in ("atomicAdd", "atomicXor", "__syncthreads", "__shfl_xor_sync", "__shfl_up_sync", "float2",
                      "float4", "int4", "long long", "__popc", "while (", "return;", "gridDim.x", "[33]"):
        assert construct in sources, construct
    assert any(s.macros.get("TILE") == "TILE_OF_BLOCK" and s.blocks == (64, 256, 1024) for s in h11)
    small_grids = {s.shape(32)[0] for s in h11 if s.shape(32)[0] == s.shape(1024)[0]}
    assert {(33,), (132,), (200,), (264,)} <= small_grids


def test_every_check_of_heldout11_accepts_what_the_simulator_computes_at_a_small_size():
    """A wrong numpy check would make every GPU point of the set report `check_error`; each
    sweep is run here on the simulator at 1/64 of its size (1/8 for the matmul, the transposes and
    the life world; the rank sort keeps its 1024-element chunks on a grid of 4)."""
    small = []
    validation_kernels._heldout11_rows(small.append, shift=6)
    assert [s.name for s in small] == [s.name for s in validation_kernels.heldout11()]
    _check_on_the_simulator(small, reject_untouched=True)


@pytest.mark.parametrize("data_file, held_out", [
    ("h100-timing-sweeps8.json", validation_kernels.seen_heldout8),
    ("h100-timing-sweeps9.json", validation_kernels.seen_heldout9),     # blind in round 11, seen since
    ("h100-timing-sweeps9-repeat.json", validation_kernels.seen_heldout9),   # again, 2 h later (round 12)
    ("h100-timing-sweeps10.json", validation_kernels.next_heldout),    # blind, round 12
])
def test_a_held_out_set_was_measured_on_the_h100_at_every_block_size_with_right_outputs(data_file, held_out):
    data = json.loads((ROOT / "course/data" / data_file).read_text())
    assert "H100" in data["device"]["name"]
    measured = {s["name"]: s for s in data["sweeps"]}
    for sweep in held_out():
        runs = measured[sweep.name]["runs"]
        assert sorted(r["block"] for r in runs) == sorted(sweep.blocks), sweep.name
        assert not [r["block"] for r in runs if "check_error" in r], sweep.name


def _check_on_the_simulator(sweeps, reject_untouched=False):
    """Run each sweep on the simulator at its smallest and largest block and require its check
    to pass (and, with reject_untouched, to fail on the outputs left as they were)."""
    import simcore

    for sweep in sweeps:
        for block in (sweep.blocks[0], sweep.blocks[-1]):
            kernel = simcore.RawModule(code=sweep.source, options=validation_kernels.sweep_options(sweep, block)) \
                .get_function(sweep.kernel)
            host = sweep.inputs(np.random.default_rng(0))
            dev = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in host)
            kernel(*sweep.shape(block), dev)
            sweep.check(host, dev, block)
            if reject_untouched:
                with pytest.raises(AssertionError):
                    sweep.check(host, host, block)
