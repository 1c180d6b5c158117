"""The step-through player: its frame model (simcore.recording.replay) at known steps of known kernels,
and the ipywidgets view driven without a browser (buttons pressed from Python)."""
import re

import numpy as np
import pytest

import simcore
from simcore.recording import replay as R
from simcore.recording.replay_recorder import ReplayRecorder
from seed_kernels import ELSE_SYNC, IFELSE, READ_LINE, REVERSE_NOSYNC, THEN_SYNC, WRITE_LINE

player = pytest.importorskip("barrier_course.lessons.player")

REVERSE = r"""
__global__ void rev(float *out, const float *in)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    tile[t] = in[t];
    __syncthreads();
    out[t] = tile[blockDim.x - 1 - t];
}
"""
SYNC_LINE = 7

NAMED_WRONG_COUNT = r"""
__global__ void halves(int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = t;
    if (t < 96) {
        asm volatile("bar.sync 1, 64;");
        out[t] = s[95 - t];
    }
}
"""

SHUFFLE_MISSING_LANE = r"""
__global__ void warpsum(int *out)
{
    int t = threadIdx.x;
    int v = t;
    if (t != 31)
        v += __shfl_down_sync(0xffffffff, v, 1);
    out[t] = v;
}
"""


def kern(src, name):
    return simcore.RawKernel(src, name)


def ifelse_recording(split=100, block=256):
    return player.record(kern(IFELSE, "ifelse"), (1,), (block,), (np.zeros(block, np.int32), np.int32(split)))


def race_recording():
    x = np.arange(128, dtype=np.float32)
    return player.record(kern(REVERSE_NOSYNC, "reverse"), (2,), (64,), (np.zeros_like(x), x),
                         schedule="adversarial")


def lanes(frame, block, warp, code):
    return [int(lane) for lane in np.flatnonzero(frame.state[block - frame.first_block, warp] == code)]


# ===================================================================== the frame model
def test_ifelse_two_sides_take_turns_then_the_divergent_barrier_fault():
    rec = ifelse_recording(split=100)        # warp 3 holds threads 96-127: lanes 0-3 take `then`
    assert rec.fault is not None and rec.fault.kind == "divergent_barrier"
    then_steps = [k for k in range(len(rec)) if R.RUNNING in rec.frame(k).state[0, 3]
                  and rec.frame(k).line == THEN_SYNC]
    else_steps = [k for k in range(len(rec)) if R.RUNNING in rec.frame(k).state[0, 3]
                  and rec.frame(k).line == ELSE_SYNC]
    assert len(then_steps) == 1 and len(else_steps) == 1 and then_steps[0] < else_steps[0]
    then = rec.frame(then_steps[0])
    assert lanes(then, 0, 3, R.RUNNING) == [0, 1, 2, 3]
    assert lanes(then, 0, 3, R.READY) == list(range(4, 32))          # the else side waits its turn
    assert set(then.lane_line[0, 3, 4:]) == {ELSE_SYNC}
    other = rec.frame(else_steps[0])
    assert lanes(other, 0, 3, R.RUNNING) == list(range(4, 32))
    assert lanes(other, 0, 3, R.WAIT_BARRIER) == [0, 1, 2, 3]        # the then side is at its barrier
    assert set(other.lane_line[0, 3, :4]) == {THEN_SYNC}
    assert other.arrivals[(0, 0)] == (100, 256)
    # the fault: every thread arrived, at two different barriers
    fault = rec.frame(rec.fault_frame)
    assert fault.event == "fault" and rec.fault_frame == len(rec) - 1
    assert fault.count(R.WAIT_BARRIER) == 256
    assert fault.arrivals[(0, 0)] == (256, 256)
    assert {ln for ln, _, _ in fault.warp_lines(0, 3)} == {THEN_SYNC, ELSE_SYNC}
    assert fault.warp_lines(0, 0) == [(THEN_SYNC, "waiting at a barrier", 32)]


def test_race_marks_both_accesses_of_the_cell():
    rec = race_recording()
    assert rec.fault.kind == "race"
    frame = rec.frame(rec.fault_frame)
    rep = rec.fault.report
    race = frame.race
    assert race["array"] == "tile" and race["index"] == rep["index"]
    # the report names both threads: each is one side of the race
    named = {int(t) for t in re.findall(r"thread (\d+) of block", rep["explanation"])}
    assert len(named) == 2 and set(race["threads"]) == named
    view = next(v for v in frame.shared if v.name == "tile" and v.block == race["block"])
    assert view.marks[race["index"]] == R.RACE
    kinds = {(t.thread, t.kind) for t in view.touches[race["index"]]}
    assert {t for t, _ in kinds} == named
    assert {k for _, k in kinds} == {"read", "write"}
    assert {t.line for t in view.touches[race["index"]]} == {WRITE_LINE, READ_LINE}
    # the step that faults runs the racing write
    assert frame.line == WRITE_LINE
    # other blocks' memory carries no race mark
    assert all(R.RACE not in v.marks for v in frame.shared if v.block != race["block"])


def test_named_barrier_with_a_wrong_count_shows_the_arrivals_against_the_count():
    rec = player.record(kern(NAMED_WRONG_COUNT, "halves"), (1,), (128,), (np.zeros(128, np.int32),))
    assert rec.fault.kind == "named_barrier"
    frame = rec.frame(rec.fault_frame)
    assert frame.arrivals == {(0, 1): (96, 64)}
    assert frame.count(R.WAIT_BARRIER) == 96
    assert set(frame.barrier[frame.state == R.WAIT_BARRIER]) == {1}
    assert lanes(frame, 0, 3, R.EXITED) == list(range(32))            # threads 96-127 skipped it
    html = player.render_frame(rec, rec.fault_frame)
    assert "barrier 1: 96/64" in html


def test_arrival_counts_on_a_block_barrier_grow_warp_by_warp():
    x = np.arange(128, dtype=np.float32)
    rec = player.record(kern(REVERSE, "rev"), (1,), (128,), (np.zeros_like(x), x), schedule="adversarial")
    assert rec.fault is None
    counts = [rec.frame(k).arrivals.get((0, 0)) for k in range(len(rec))]
    seen = [c for c in counts if c]
    assert seen == [(32, 128), (64, 128), (96, 128), (128, 128)]
    release = rec.next_barrier(0)
    assert rec.frame(release).event == "barrier_release" and rec.frame(release).line == SYNC_LINE
    assert counts[release] == (128, 128)
    assert rec.frame(len(rec) - 1).event == "end" and rec.frame(len(rec) - 1).count(R.EXITED) == 128


def test_memory_marks_reset_at_a_barrier():
    x = np.arange(128, dtype=np.float32)
    rec = player.record(kern(REVERSE, "rev"), (1,), (128,), (np.zeros_like(x), x), schedule="adversarial")
    release = rec.next_barrier(0)
    before = rec.frame(release).shared[0]
    assert (before.marks[:128] == R.WRITE).all() and (before.marks[128:] == 0).all()
    assert before.touches[5][0].thread == 5 and before.touches[5][0].kind == "write"
    after = rec.frame(release + 1).shared[0]              # the first warp reads, after the barrier
    assert (after.marks == R.WRITE).sum() == 0            # the writes belong to the last interval
    read = np.flatnonzero(after.marks == R.READ)
    assert len(read) == 32
    readers = {t.thread for i in read for t in after.touches[int(i)]}
    assert readers == {127 - int(i) for i in read}


def test_shuffle_with_a_missing_lane_waits_at_a_warp_sync():
    rec = player.record(kern(SHUFFLE_MISSING_LANE, "warpsum"), (1,), (32,), (np.zeros(32, np.int32),))
    assert rec.fault.kind == "invalid_mask"
    frame = rec.frame(rec.fault_frame)
    assert lanes(frame, 0, 0, R.WAIT_WARP) == list(range(31))
    assert frame.state[0, 0, 31] != R.WAIT_WARP


def test_next_divergence_finds_the_split():
    rec = ifelse_recording(split=100)
    k = rec.next_divergence(0)
    assert k is not None
    before, at = rec.frame(k - 1), rec.frame(k)
    def split(f):
        return sum(len({ln for ln, _, _ in f.warp_lines(0, w)}) > 1 for w in range(8))
    assert split(at) > split(before)


def test_a_cut_recording_says_so(monkeypatch):
    monkeypatch.setattr(ReplayRecorder, "MAX_STEPS", 3)
    x = np.arange(128, dtype=np.float32)
    rec = player.record(kern(REVERSE, "rev"), (1,), (128,), (np.zeros_like(x), x), schedule="adversarial")
    assert rec.truncated and len(rec) == 4                  # 3 steps and the end state
    assert "cut" in rec.cut_note
    assert "cut" in player.render_frame(rec, 0)
    assert rec.frame(3).event == "end" and rec.frame(3).count(R.EXITED) == 128
    assert not any(v.marks.any() for v in rec.frame(3).shared)     # accesses after the cut are unknown


def test_frame_out_of_range_is_a_clear_error():
    rec = ifelse_recording()
    with pytest.raises(IndexError, match="outside the recording"):
        rec.frame(len(rec))


def test_record_leaves_the_callers_arrays_alone():
    x = np.arange(128, dtype=np.float32)
    out = np.full_like(x, -1)
    player.record(kern(REVERSE, "rev"), (1,), (128,), (out, x))
    assert (out == -1).all()


def test_traced_launch_carries_the_replay_and_its_fault():
    k = kern(IFELSE, "ifelse")
    with pytest.raises(simcore.DivergentBarrier):
        k((1,), (256,), (np.zeros(256, np.int32), np.int32(100)), trace=True)
    launch = k.last_launch
    assert launch.fault is not None and launch.fault.kind == "divergent_barrier"
    p = player.from_launch(launch)
    assert p.k == p.rec.fault_frame


def test_from_a_launch_without_trace_says_how():
    k = kern(REVERSE, "rev")
    x = np.arange(128, dtype=np.float32)
    k((1,), (128,), (np.zeros_like(x), x))
    with pytest.raises(ValueError, match="trace=True"):
        player.from_launch(k.last_launch)


# ===================================================================== the widget, without a browser
def test_player_opens_at_the_fault_with_the_report_beside_it():
    p = player.Player(ifelse_recording())
    assert p.k == p.rec.fault_frame
    assert "THE FAULT" in p.header.value
    assert "divergent" in p.report.value.lower() and "How to fix it" in p.report.value
    assert "256/256" in p.lanes.value and "256/256" in p.source.value
    assert "simulator" in p.message.value


def test_stepping_changes_the_picture():
    x = np.arange(128, dtype=np.float32)
    p = player.show(kern(REVERSE, "rev"), (1,), (128,), (np.zeros_like(x), x), schedule="adversarial")
    assert p.k == 0 and p.report.value.count("report") == 0
    before = (p.source.value, p.lanes.value, p.memory.value)
    p.step_button.click()
    assert p.k == 1 and p.slider.value == 1
    after = (p.source.value, p.lanes.value, p.memory.value)
    assert before[1] != after[1] and before[2] != after[2]
    assert "barrier 0: 32/128" in p.lanes.value
    p.back_button.click()
    assert p.k == 0 and p.lanes.value == before[1]
    p.back_button.click()                                   # stays at the first step
    assert p.k == 0
    p.barrier_button.click()
    assert p.k == p.rec.next_barrier(0)
    assert "barrier 0: 128/128" in p.lanes.value and "releases" in p.header.value
    p.fault_button.click()                                  # no fault: it says so and stays
    assert p.k == p.rec.next_barrier(0) and "without a fault" in p.message.value


def test_fault_button_and_race_marks_in_the_html():
    p = player.Player(race_recording())
    race = p.frame.race
    p.go(0)
    assert 'class="mrace"' not in p.memory.value
    p.fault_button.click()
    assert p.k == p.rec.fault_frame
    assert p.memory.value.count('class="mrace"') == 1
    assert f'tile[{race["index"]}] RACE' in p.memory.value
    assert p.lanes.value.count(" race\"") == 2              # both racing threads' lanes outlined
    assert 'class="flt"' in p.source.value


def test_block_and_warp_filters_draw_only_what_is_chosen():
    p = player.Player(race_recording())
    assert "block 0" in p.lanes.value and "block 1" in p.lanes.value
    p.block_filter.value = 1
    assert "block 0" not in p.lanes.value and "block 1" in p.lanes.value
    assert "(block 0)" not in p.memory.value
    p.warp_filter.value = (1, 1)
    assert "warp 0" not in p.lanes.value and "warp 1" in p.lanes.value
    assert not p.block_filter.disabled


def test_a_one_block_launch_offers_no_block_filter_to_change():
    """With one block, "block 0" shows what "all blocks" shows: the control is greyed out, not a
    choice that does nothing when a student picks it."""
    x = np.arange(128, dtype=np.float32)
    p = player.show(kern(REVERSE, "rev"), (1,), (128,), (np.zeros_like(x), x))
    assert p.block_filter.disabled
    assert not p.warp_filter.disabled and not p.slider.disabled


def test_big_launch_opens_with_a_block_filter():
    x = np.ones(8 * 1024, np.float32)
    src = REVERSE.replace("tile[256]", "tile[1024]").replace("in[t]", "in[blockIdx.x * blockDim.x + t]")
    p = player.show(kern(src, "rev"), (8,), (1024,), (np.zeros_like(x), x))
    assert p.blocks == [0, 1]
    assert "block 1" in p.lanes.value and "block 2" not in p.lanes.value


def test_snapshot_is_the_same_view_as_a_page():
    p = player.Player(race_recording())
    page = p.snapshot()
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert 'class="mrace"' in page and "Data race" in page
    first = p.snapshot(0)
    assert 'class="mrace"' not in first and p.k == p.rec.fault_frame     # a snapshot does not move the player


def test_a_kernel_meant_for_the_gpu_is_replayed_on_the_simulator():
    # With SIMCORE_BACKEND=cupy the lessons' kernels belong to a GPU module; the player compiles
    # the same source for the simulator (no GPU is needed for that).
    gpu_kernel = kern(REVERSE, "rev")
    gpu_kernel.module.backend = "cupy"          # as a module made with backend="cupy" says
    x = np.arange(128, dtype=np.float32)
    rec = player.record(gpu_kernel, (1,), (128,), (np.zeros_like(x), x))
    assert rec.fault is None and len(rec) > 2
    assert gpu_kernel.last_launch is None       # the GPU kernel itself was not launched


def test_show_refuses_what_is_not_a_kernel():
    with pytest.raises(TypeError, match="get_function"):
        player.show(REVERSE, (1,), (32,), ())


def test_launch_errors_reach_the_student_as_they_are():
    x = np.arange(128, dtype=np.float32)
    with pytest.raises(simcore.LaunchError, match="argument"):
        player.show(kern(REVERSE, "rev"), (1,), (128,), (x,))


def test_a_block_filter_outside_the_running_wave_says_which_blocks_run():
    src = REVERSE.replace("tile[256]", "tile[1024]").replace("in[t]", "in[blockIdx.x * blockDim.x + t]") \
                 .replace("out[t]", "out[blockIdx.x * blockDim.x + t]")
    x = np.arange(8 * 1024, dtype=np.float32)
    p = player.show(kern(src, "rev"), (8,), (1024,), (np.zeros_like(x), x), schedule="adversarial")
    later = int(np.flatnonzero(p.rec.waves == 1)[0])      # the second wave: blocks 4-7
    p.go(later)
    assert p.blocks == [0, 1] and "blocks 4-7 do" in p.lanes.value
    p.block_filter.value = 5
    assert "block 5" in p.lanes.value and "tile (block 5)" in p.memory.value


def test_a_race_in_global_memory_has_no_shared_cell_but_keeps_its_report():
    src = r"""
__global__ void peek(int *stamp, int *seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stamp[i] = blockIdx.x + 1;
    __syncthreads();
    seen[i] = stamp[(i + blockDim.x) % (gridDim.x * blockDim.x)];
}
"""
    p = player.show(kern(src, "peek"), (2,), (32,), (np.zeros(64, np.int32), np.zeros(64, np.int32)))
    assert p.rec.fault.kind == "race" and p.frame.race is None
    assert "between blocks" in p.report.value and "no shared memory" in p.memory.value


# ===================================================================== an exercise's kernel, as source
TILE_SUM = r"""
extern "C" __global__ void tile_sum(const float *in, float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) {
        s[t] = in[i];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0] + s[1];
}
"""


def tile_args(n, block, rng):
    """An exercise's make_args: (grid, args, shared_mem), as check_kernel takes it."""
    grid = (n + block - 1) // block
    return (grid,), (rng.random(n).astype(np.float32), np.full(grid, np.nan, np.float32), np.int32(n)), 0


def test_show_source_builds_the_launch_from_make_args():
    good = TILE_SUM.replace("if (i < n) {", "{").replace("s[t] = in[i];", "s[t] = (i < n) ? in[i] : 0.0f;")
    p = player.show_source(good, "tile_sum", make_args=tile_args, n=40, block=64)
    assert p.rec.fault is None and p.rec.launch.num_blocks == 1 and p.rec.tpb == 64
    assert "tile_sum" in p.header.value


def test_show_source_opens_at_the_fault_of_the_students_kernel():
    p = player.show_source(TILE_SUM, "tile_sum", make_args=tile_args, n=40, block=64)
    assert p.rec.fault is not None and p.k == p.rec.fault_frame and "THE FAULT" in p.header.value


def test_show_source_on_the_unfinished_exercise_prints_one_line(capsys):
    stub = TILE_SUM.replace("s[t] = in[i];", '__simcore_todo("YOUR CODE HERE: replace this line with your code");')
    assert player.show_source(stub, "tile_sum", make_args=tile_args, n=40, block=64) is None
    out = capsys.readouterr().out.strip()
    assert out.startswith(player.NOTHING_TO_SHOW) and "__simcore_todo(...)" in out and "\n" not in out


def test_show_source_reports_a_compile_error_without_raising(capsys):
    bad = TILE_SUM.replace("s[t] = in[i];", "s[t] = ;")
    assert player.show_source(bad, "tile_sum", make_args=tile_args, n=40, block=64) is None
    out = capsys.readouterr().out
    assert "does not compile" in out and "line 8" in out


def test_show_source_takes_the_block_size_the_kernel_chooses(capsys):
    from barrier_course.grading.speed_grading import chosen_block_size
    chosen = "#define BLOCK_SIZE 32\n" + TILE_SUM.replace("if (i < n) {", "{").replace("s[t] = in[i];", "s[t] = (i < n) ? in[i] : 0.0f;")
    p = player.show_source(chosen, "tile_sum", make_args=tile_args, n=40, block=chosen_block_size)
    assert p.rec.tpb == 32 and p.rec.launch.num_blocks == 2
    missing = TILE_SUM
    assert player.show_source(missing, "tile_sum", make_args=tile_args, n=40, block=chosen_block_size) is None
    assert "#define BLOCK_SIZE" in capsys.readouterr().out


def test_show_with_a_source_string_names_show_source():
    with pytest.raises(TypeError, match="show_source"):
        player.show(REVERSE, (1,), (32,), ())


def test_the_static_form_is_the_view_at_the_current_step():
    # where no widget can be shown (a handout, nbconvert) the player's output is its picture
    p = player.Player(ifelse_recording(split=40, block=64))
    data = p.widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data       # JupyterLab: the live widget
    assert f"at step {p.rec.fault_frame} of {len(p.rec) - 1}" in data["text/plain"]
    assert "divergent" in data["text/plain"] and "VBox(" not in data["text/plain"]
    html = data["text/html"]
    assert html.count('<i class="bar"') == 64 and "THE FAULT" in html and "How to fix it" in html
    assert render_body(html) == render_body(p.snapshot())
    p.go(1)
    moved = p.widget._repr_mimebundle_()
    assert "at step 1 of" in moved["text/plain"] and "step 1: line" in moved["text/html"]
    assert moved["text/html"] != html


def render_body(page):
    """The player's view inside a snapshot page or an output (without the page around it)."""
    return page[page.index('<div class="simpl">'):page.rindex("</div>") + 6]


# ===================================================================== the controls (issue: play, pause, reset, messages)
def _reverse_player():
    x = np.arange(128, dtype=np.float32)
    return player.show(kern(REVERSE, "rev"), (1,), (128,), (np.zeros_like(x), x), schedule="adversarial")


def test_play_draws_every_step_in_order_and_pause_keeps_the_step():
    import asyncio

    p = _reverse_player()
    p.speed.value = 30
    drawn = []
    draw = p._draw
    p._draw = lambda k: (drawn.append(k), draw(k))

    async def play_until(stop_at):
        p.play_button.value = True
        assert p.play_button.description.endswith("pause")
        while p.play_button.value:
            if p.k >= stop_at:
                p.play_button.value = False              # the pause button
            await asyncio.sleep(0.001)
        await p._play_task

    asyncio.run(play_until(2))
    assert drawn == [1, 2] and p.k == 2, drawn            # paused: stays at its step
    assert p.play_button.description.endswith("play")
    drawn.clear()
    asyncio.run(play_until(len(p.rec)))                   # on to the end, no step skipped
    assert drawn == list(range(3, len(p.rec))) and p.k == len(p.rec) - 1
    p.reset_button.click()                                # the separate way back
    assert p.k == 0 and not p.play_button.value


def test_play_without_a_kernel_loop_says_so():
    p = _reverse_player()
    p.play_button.value = True
    assert not p.play_button.value and "step" in p.message.value and p.k == 0


def test_next_barrier_and_divergence_say_so_when_there_is_none():
    p = _reverse_player()
    p.go(len(p.rec) - 1)
    p.barrier_button.click()
    assert "No barrier releases after step" in p.message.value and p.k == len(p.rec) - 1
    p.divergence_button.click()
    assert "No warp diverges after step" in p.message.value


def test_the_step_caption_names_every_line_that_ran():
    rec = ifelse_recording()
    many = [k for k in range(len(rec)) if rec.frame(k).event == "step" and len(set(rec.frame(k).lines)) > 1]
    assert many, "no step of this kernel runs more than one line"
    frame = rec.frame(many[0])
    header = player.render_header(rec, frame)
    for line in set(frame.lines):
        assert re.search(rf"\b{line}\b", header.split("run")[0]), (line, header)
    assert "lines " in header


def test_the_player_layout_never_needs_a_horizontal_scroll():
    """The panes wrap (stack when narrow), the lane cells may shrink, no fixed minimum width."""
    p = player.Player(ifelse_recording())
    assert "min-width:18em" not in p.report.value and "min-width:600px" not in player.CSS
    for box in (p.widget.children[2], p.widget.children[3], p.widget.children[-1]):
        assert box.layout.flex_flow == "row wrap"
    assert 'class="lanes"' in p.lanes.value


def test_a_long_list_of_racing_threads_is_summarised_as_ranges():
    rec = race_recording()
    assert player._thread_list(rec, range(0, 100)) == "100 threads: 0-99"
    assert player._thread_list(rec, [3, 1]) == f"{rec.thread_name(1)}, {rec.thread_name(3)}"


def test_states_and_marks_stay_apart_in_black_and_white():
    """A printed handout is often grey: ready / waiting / exited, and read / written, differ by
    a pattern or clearly by lightness, not by hue alone."""
    def look(cls, where):
        base = re.search(r"\.simpl (?:\.mem i)?\." + cls + r"\{background:#([0-9a-f]{6})", player.CSS)
        assert base, cls
        r, g, b = (int(base.group(1)[k:k + 2], 16) / 255 for k in (0, 2, 4))
        pattern = re.search(r"\.simpl " + re.escape(where) + r"\." + cls + r"\b[^{]*\{[^}]*gradient",
                            player.CSS)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b, bool(pattern)

    for group, where in ((["rdy", "bar", "ext"], ".grid i"), (["mr", "mw"], ".mem i")):
        looks = [look(c, where) for c in group]
        for i in range(len(looks)):
            for j in range(i + 1, len(looks)):
                (li, pi), (lj, pj) = looks[i], looks[j]
                assert pi != pj or abs(li - lj) > 0.12, (group[i], group[j], looks[i], looks[j])
    assert "print-color-adjust:exact" in player.CSS
