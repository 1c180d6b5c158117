"""The course helpers by concept (barrier_course.lessons.faults, traces, warps, occupancy, notebook)
and the one array comparison (simcore.compare.array_difference) do what the lessons rely on."""

import numpy as np
import pytest

import simcore
from barrier_course.lessons import faults, notebook, occupancy, traces, warps
from simcore.compare import array_difference

TWO_SIDES = r"""
extern "C" __global__ void two_sides(int *out, const int *in, int split)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    tile[t] = in[t];
    if (t < split) { __syncthreads(); out[t] = tile[255 - t]; }
    else           { __syncthreads(); out[t] = tile[255 - t] + 1; }
}
extern "C" __global__ void no_barrier(int *out, const int *in, int split)
{
    __shared__ int tile[256];
    tile[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = tile[255 - threadIdx.x];
}
extern "C" __global__ void reduce_tree(int *out, const int *in, int split)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""


@pytest.fixture(scope="module")
def module():
    return simcore.RawModule(code=TWO_SIDES, backend="sim")


def _args(n=256, split=80):
    x = np.arange(n, dtype=np.int32)
    return (np.zeros_like(x), x, np.int32(split))


# ------------------------------------------------------------------------ faults

def test_run_kernel_captures_a_fault_and_its_report(module):
    run = faults.run_kernel(module.get_function("two_sides"), (1,), (256,), _args())
    assert run.status == "divergent_barrier" == run.kind and not run.completed
    assert run.line == run.fault.line and run.line
    text = str(run.fault)
    for name in ("head", "what", "where", "fix"):
        part = faults.report_section(run.fault, name)
        assert part and part in text, name          # every section is a piece of the report
    assert faults.report_section(run.fault, "what").startswith("What happened: ")
    assert faults.report_section(run.fault, "title") == run.fault.title
    assert "What happened" not in faults.report_section(run.fault, "head")
    with pytest.raises(ValueError, match="unknown report section"):
        faults.report_section(run.fault, "nope")


def test_run_kernel_completed_and_refused(module):
    run = faults.run_kernel(module.get_function("reduce_tree"), (1,), (256,), _args())
    assert run.completed and run.fault is None and str(run).startswith("completed")
    with pytest.raises(AssertionError, match="no fault report to show"):
        faults.print_sections(run.fault, "head")
    refused = faults.run_kernel(module.get_function("two_sides"), (1,), (2048,), _args())
    assert refused.status == "error" and isinstance(refused.fault, simcore.LaunchError)
    assert str(refused).startswith("ERROR LaunchError")


def test_print_sections_skips_missing_parts(module, capsys):
    run = faults.run_kernel(module.get_function("no_barrier"), (1,), (256,), _args())
    assert run.kind == "race"
    faults.print_sections(run.fault, "head", "what")
    out = capsys.readouterr().out
    assert out.startswith("========= simcore:") and "What happened:" in out
    assert "How to fix it" not in out


# ------------------------------------------------------------------------ traces

def test_barrier_counts_per_block(module):
    kern = module.get_function("reduce_tree")
    x = np.arange(4 * 128, dtype=np.int32)
    out = np.zeros(4, dtype=np.int32)
    kern((4,), (128,), (out, x, np.int32(0)), trace=True)
    assert np.array_equal(out, x.reshape(4, 128).sum(axis=1))
    # one barrier before the loop, one per level: 1 + log2(128)
    assert traces.barrier_counts(kern.last_launch.trace) == {b: 8 for b in range(4)}
    assert traces.barrier_counts(kern.last_launch.trace, barrier=1) == {}
    passes = traces.warp_passes(kern.last_launch.trace, block=0)
    assert sorted(passes) == [0, 1, 2, 3]
    lanes = {n for p in passes.values() for _, _, _, n in p}
    assert 32 in lanes and 1 in lanes        # full warps first, a single lane at stride 1


# ------------------------------------------------------------------------ warps

def test_masks_and_lane_ranges():
    assert warps.popcount(0xFFFF0000) == 16 and warps.popcount(1 << 40) == 0
    assert warps.mask_of([0, 1, 2, 5]) == 0b100111
    assert warps.lane_ranges(0x0000FFFF) == "0-15"
    assert warps.lane_ranges(warps.mask_of([0, 2, 3, 4, 31])) == "0, 2-4, 31"
    assert warps.lane_ranges(0) == "none"
    with pytest.raises(ValueError, match="lane 32"):
        warps.mask_of([32])


def test_shfl_reference_segments():
    v = 100 + np.arange(32)
    got, src = warps.shfl_reference("down", v, 16)
    assert list(src[:3]) == [16, 17, 18] and src[31] == 31 and got[0] == 116
    _, src = warps.shfl_reference("xor", v, 6, width=8)
    assert all(s // 8 == k // 8 for k, s in enumerate(src))


# ------------------------------------------------------------------------ occupancy

SCRATCH = r"""
#ifndef TILE
#define TILE 256
#endif
extern "C" __global__ void k(float *out)
{
    __shared__ float scratch[32][TILE];
    __shared__ int count;
    extern __shared__ double dyn[];
    scratch[0][threadIdx.x] = 1.0f; count = 0; dyn[0] = 0.0;
    out[threadIdx.x] = scratch[0][threadIdx.x] + count + dyn[0];
}
"""


@pytest.mark.parametrize("tile", [32, 256])
def test_shared_sizes_come_from_the_compiled_kernel(tile):
    kern = simcore.RawModule(code=SCRATCH, options=(f"-DTILE={tile}",)).get_function("k")
    assert occupancy.shared_arrays(kern) == [("__shared__ float scratch", 32 * tile * 4),
                                             ("__shared__ int count", 4)]
    assert kern.static_shared_bytes == 32 * tile * 4 + 4
    dynamic = [a for a in kern.shared_arrays if a.dynamic]
    assert [(a.name, a.element_type, a.nbytes) for a in dynamic] == [("dyn", "double", 0)]


def test_blocks_per_sm_names_the_limit():
    assert occupancy.blocks_per_sm(256, 32 * 256 * 4) == (6, "shared memory")
    assert occupancy.blocks_per_sm(32, 32 * 32 * 4) == (32, "blocks")
    assert occupancy.blocks_per_sm(1024, 0) == (2, "threads")


# ------------------------------------------------------------------------ comparison

def test_array_difference_rule():
    a = np.array([1.0, np.nan, 3.0, np.inf], np.float32)
    assert array_difference(a, a.copy()).ok                    # NaN agrees with NaN
    b = a.copy()
    b[1] = 2.0
    d = array_difference(b, a)                                 # a number never equals NaN
    assert (d.wrong, d.total) == (1, 4) and d.examples[0][0] == 1
    assert array_difference(a * np.float32(1 + 2e-7), a).ok    # within rtol
    ints = np.arange(6, dtype=np.int32)
    d = array_difference(ints + (ints == 4), ints)
    assert d.rule == "exact" and [e[0] for e in d.examples] == [4]
    assert array_difference(np.arange(10), np.arange(5)).ok    # a longer output: its prefix
    with pytest.raises(ValueError, match="3 element"):
        array_difference(np.arange(3), np.arange(5))
    two_d = array_difference(np.eye(2), np.zeros((2, 2)))
    assert [e[0] for e in two_d.examples] == [(0, 0), (1, 1)]


# ------------------------------------------------------------------------ notebook

def test_setup_says_what_runs_the_kernels(capsys, monkeypatch):
    monkeypatch.delenv("SIMCORE_BACKEND", raising=False)
    notebook.setup()
    out = capsys.readouterr().out
    assert "simcore from" in out and "simulator" in out
    monkeypatch.setenv("SIMCORE_BACKEND", "cupy")
    assert "GPU" in notebook.backend_note()


def test_the_kernel_editor_tells_the_whole_story_of_a_fault():
    """What happened and how to fix it, with the title and the reported line's number and text;
    the picture is never wider than the window allows (no min-width)."""
    import numpy as np

    from barrier_course.lessons import widgets

    src = ('extern "C" __global__ void k(float *out)\n{\n    int t = threadIdx.x;\n'
           '    if (t < 16)\n        __syncthreads();\n    out[t] = t;\n}\n')
    box = widgets.kernel_editor(src, "k", lambda block: ((1,), (np.zeros(block, np.float32),)),
                                lambda args, block: np.arange(block, dtype=np.float32),
                                output=0, block_sizes=(64,))
    out = box.last_outcome
    assert out.status == "fault", out.summary()
    text = out.summary()
    assert "What happened: " in text and "How to fix it: " in text
    assert out.what and out.what in text and out.fix in text
    assert f"line {out.line}: " in text and src.splitlines()[out.line - 1].strip() in text
    image = box.children[-1]
    assert "min-width" not in image.value and "<img" in image.value


def test_the_kernel_editor_numbers_its_lines_as_the_reports_do():
    import re

    import numpy as np

    from barrier_course.lessons import widgets

    src = ('extern "C" __global__ void k(float *out)\n{\n    int t = threadIdx.x;\n'
           '    if (t < 16)\n        __syncthreads();\n    out[t] = t;\n}\n')
    box = widgets.kernel_editor(src, "k", lambda block: ((1,), (np.zeros(block, np.float32),)),
                                lambda args, block: np.arange(block, dtype=np.float32),
                                output=0, block_sizes=(64,), picture=False)
    numbers = re.findall(r"\d+", box.line_numbers.value.split(">", 1)[1])
    assert numbers == [str(k) for k in range(1, 8)]
    line = box.last_outcome.line
    assert box.editor.value.splitlines()[line - 1].strip() == "__syncthreads();"
    box.editor.value = "// a comment first\n" + box.editor.value
    assert re.findall(r"\d+", box.line_numbers.value.split(">", 1)[1])[-1] == "8"
    assert box.run().line == line + 1


def test_the_kernel_editor_shows_verdict_and_picture_together(monkeypatch):
    """While the picture is drawn (seconds for a big trace), the verdict shown is still the
    previous one: the two change together, never a new verdict beside an old picture."""
    import numpy as np

    from barrier_course.lessons import widgets

    src = ('extern "C" __global__ void k(float *out)\n{\n    int t = threadIdx.x;\n'
           '    out[t] = t;\n}\n')
    box = widgets.kernel_editor(src, "k", lambda block: ((1,), (np.zeros(block, np.float32),)),
                                lambda args, block: np.arange(block, dtype=np.float32),
                                output=0, block_sizes=(64,))
    verdict = next(c for c in box.children if isinstance(c, type(box.children[0])) and "correct" in c.value)
    seen = []
    draw = widgets._trace_figure
    monkeypatch.setattr(widgets, "_trace_figure", lambda kern, out: (seen.append(verdict.value), draw(kern, out))[1])
    box.editor.value = box.editor.value.replace("out[t] = t;", "out[t] = 2 * t;")
    out = box.run()
    assert out.status == "wrong" and seen and "correct" in seen[0]
    assert "WRONG" in verdict.value


def test_a_handout_prints_no_path_of_the_build_machine(capsys, monkeypatch):
    import os

    import simcore
    from barrier_course.lessons.handouts import HANDOUT_ENV

    monkeypatch.setenv(HANDOUT_ENV, "1")
    notebook.setup()
    out = capsys.readouterr().out
    assert os.path.dirname(simcore.__file__) not in out and f"simcore {simcore.__version__}" in out
