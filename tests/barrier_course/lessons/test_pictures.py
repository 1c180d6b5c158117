"""The course pictures contain what the lessons say they contain.

Uses a small hand-made trace (namedtuples shaped like simcore.Trace) so it runs without the
simulator, and a real simcore trace when simcore imports.
"""

import json
import os
import sys
from collections import namedtuple

import numpy as np
import pytest

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
from barrier_course.lessons import pictures, traces  # noqa: E402

Step = namedtuple("Step", "index pc_line warps barriers")
WS = namedtuple("WS", "block warp line active_mask waiting state")
Trace = namedtuple("Trace", "steps")

FULL = 0xFFFFFFFF


def hand_trace():
    """Two warps of block 0 and one of block 1: write, barrier, read, exit."""
    def step(i, states, lines, bars):
        warps = [WS(b, w, ln, FULL, s != "running", s)
                 for (b, w), s, ln in zip([(0, 0), (0, 1), (1, 0)], states, lines)]
        return Step(i, lines[0], warps, bars)
    return Trace([
        step(0, ["running", "running", "running"], [5, 5, 5], {}),
        step(1, ["waiting_barrier", "running", "running"], [6, 5, 5], {(0, 0): 32}),
        step(2, ["waiting_barrier", "waiting_barrier", "waiting_barrier"], [6, 6, 6],
             {(0, 0): 64, (1, 0): 32}),
        step(3, ["running", "running", "running"], [7, 7, 7], {(0, 0): 0, (1, 0): 0}),
        step(4, ["exited", "exited", "exited"], [7, 7, 7], {}),
    ])


def legend_texts(fig):
    out = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in leg.get_texts()]
    return out


def test_trace_rows_title_legend():
    fig = pictures.trace_figure(hand_trace(), title="hand-made trace")
    ax_bar, ax = fig.axes[:2]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["block 1 / warp 0", "block 0 / warp 1", "block 0 / warp 0"]
    assert ax_bar.get_title() == "hand-made trace"
    texts = legend_texts(fig)
    assert "running" in texts
    assert "waiting at a block barrier" in texts
    assert "exited" in texts
    assert "arrives at barrier" in texts
    assert "barrier released" in texts
    assert "block 0, barrier 0" in texts and "block 1, barrier 0" in texts
    plt.close(fig)


def test_trace_states_are_hatched_for_print():
    fig = pictures.trace_figure(hand_trace())
    ax = fig.axes[1]
    hatches = {c.get_hatch() for c in ax.collections if hasattr(c, "get_hatch")}
    assert pictures.STATE_STYLE["waiting_barrier"][2] in hatches
    # source lines are written on the bars
    assert any(t.get_text() in ("line 5", "5") for t in ax.texts) or len(hand_trace().steps) < 10
    assert "numbers on bars: the kernel's source line" in {t.get_text() for t in fig.legends[0].texts}
    plt.close(fig)


def test_trace_arrival_markers():
    fig = pictures.trace_figure(hand_trace())
    ax = fig.axes[1]
    markers = [ln for ln in ax.lines if ln.get_marker() == "v"]
    assert len(markers) == 1
    # one arrival per warp: warp (0,0) at step 1, the two others at step 2
    assert sorted(markers[0].get_xdata()) == [1, 2, 2]
    plt.close(fig)


def test_trace_block_filter_and_split_groups():
    tr = hand_trace()
    # a warp reported as two lane groups in different states
    s = tr.steps[1]
    warps = list(s.warps) + [WS(0, 1, 9, 0xFFFF0000, True, "waiting_reconverge")]
    tr.steps[1] = Step(s.index, s.pc_line, warps, s.barriers)
    rows, states, _ = traces.warp_timeline(tr, blocks=[0])
    assert rows == [(0, 0), (0, 1)]
    assert states[1][1] == "split"
    fig = pictures.trace_figure(tr, blocks=0)
    assert len(fig.axes[1].get_yticklabels()) == 2
    assert "lane groups in different states" in legend_texts(fig)
    plt.close(fig)


def test_read_map_reverse():
    n = 128
    fig = pictures.read_map_figure(np.arange(n)[::-1], title="reverse")
    ax, ax_m = fig.axes[:2]
    assert "reverse" in ax.get_title()
    assert "128 of 128 reads cross a warp boundary" in ax.get_title()
    warp_labels = [t.get_text() for t in ax.texts if t.get_text().startswith("warp ")]
    assert warp_labels == ["warp 0", "warp 1", "warp 2", "warp 3"]
    assert set(legend_texts(fig)) == {"read inside own warp", "read from another warp"}
    assert ax_m.images[0].get_array().shape == (4, 4)
    # the warp matrix is an anti-diagonal of 32s
    numbers = sorted(t.get_text() for t in ax_m.texts)
    assert numbers == ["32"] * 4
    plt.close(fig)


def test_read_map_subsamples_arrows():
    fig = pictures.read_map_figure(np.arange(1024)[::-1], max_arrows=64)
    ax = fig.axes[0]
    assert "arrows for 1 thread in 16" in ax.get_title()
    plt.close(fig)


def test_barrier_cost_figure():
    fig = pictures.barrier_cost_figure()
    assert "MEASURED" in fig._suptitle.get_text() and "H200" in fig._suptitle.get_text()
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert len(ax.lines) == 2
    assert "cycles per __syncthreads()" == fig.axes[0].get_ylabel()
    plt.close(fig)


REVERSE = r'''
extern "C" __global__ void reverse_tile(const float *in, float *out)
{
    __shared__ float tile[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    __syncthreads();
    out[i] = tile[blockDim.x - 1 - t];
}
'''


def test_real_trace_from_simcore():
    simcore = pytest.importorskip("simcore")
    if not hasattr(simcore, "RawModule"):
        pytest.skip("simcore is not complete yet")
    kern = simcore.RawModule(code=REVERSE, backend="sim").get_function("reverse_tile")
    x = np.arange(128, dtype=np.float32)
    out = np.zeros_like(x)
    kern((1,), (128,), (x, out), schedule="round_robin", trace=True)
    np.testing.assert_array_equal(out, x[::-1])
    trace = kern.last_launch.trace
    fig = pictures.trace_figure(trace, title="reverse_tile")
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels == [f"block 0 / warp {w}" for w in (3, 2, 1, 0)]
    assert "waiting at a block barrier" in legend_texts(fig)
    plt.close(fig)


def test_barrier_costs_come_from_the_measurement_file_and_a_missing_one_is_named(tmp_path):
    path = os.path.join(pictures.DATA_DIR, "h200-barrier.json")
    with open(path) as f:
        assert pictures.load_barrier_costs() == json.load(f)
    with pytest.raises(FileNotFoundError, match="missing.h200-barrier.json is missing"):
        pictures.load_barrier_costs(str(tmp_path / "missing.h200-barrier.json"))


# The explorer's non-widget half (barrier_course.lessons.widgets) is used by the same lessons.

def test_compare_and_outcome_summary():
    from barrier_course.lessons import widgets
    from simcore.compare import array_difference
    got = np.array([1, 2, 9, 4, 0], dtype=np.float32)
    exp = np.array([1, 2, 3, 4, 5], dtype=np.float32)
    diff = array_difference(got, exp)
    wrong, total = diff.wrong, diff.total
    assert (wrong, total) == (2, 5)
    examples = [(i, g.item(), e.item()) for i, e, g in diff.examples]
    assert examples == [(2, 9.0, 3.0), (4, 0.0, 5.0)]
    out = widgets.Outcome("wrong", block=32, schedule="adversarial", checks=False,
                          kernel="k", wrong=wrong, total=total, examples=examples)
    text = out.summary()
    assert "WRONG: 2 of 5" in text and "out[2]=9 (expected 3)" in text
    assert "checks off" in text and not out.ok
    fault = widgets.Outcome("fault", block=64, schedule="lockstep", checks=True, kind="race",
                            line=9, first_line="========= simcore: Data race")
    assert "FAULT race at line 9" in fault.summary()
    assert "<pre" in fault._repr_html_()


def test_run_case_on_simcore():
    simcore = pytest.importorskip("simcore")
    if not hasattr(simcore, "RawModule"):
        pytest.skip("simcore is not complete yet")
    from barrier_course.lessons import widgets
    src = REVERSE + REVERSE.replace("reverse_tile", "reverse_tile_nobarrier").replace(
        "__syncthreads();", "")
    mod = simcore.RawModule(code=src, backend="sim")

    def make_args(block):
        x = np.arange(2 * block, dtype=np.float32)
        return (2,), (x, np.zeros_like(x))

    def reference(args, block):
        return args[0].reshape(-1, block)[:, ::-1].ravel()

    good = widgets.run_case(mod.get_function("reverse_tile"), 128, make_args, reference,
                            schedule="adversarial")
    assert good.status == "correct", good.summary()
    bad = widgets.run_case(mod.get_function("reverse_tile_nobarrier"), 128, make_args,
                           reference, checks=True)
    assert bad.status == "fault" and bad.kind == "race", bad.summary()
    wrong = widgets.run_case(mod.get_function("reverse_tile_nobarrier"), 128, make_args,
                             reference, checks=False, schedule="adversarial")
    assert wrong.status == "wrong" and wrong.wrong > 0, wrong.summary()


def test_trace_end_label():
    fig = pictures.trace_figure(hand_trace(), end_label="deadlock")
    assert any("deadlock" in t.get_text() for t in fig.axes[1].texts)
    plt.close(fig)
