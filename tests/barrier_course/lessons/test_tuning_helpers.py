"""barrier_course.lessons.tuning: the model next to the committed H200 measurements."""
import pytest

from barrier_course.lessons import tuning


def test_measured_sweeps_cover_the_eight_kernel_kinds():
    sweeps = tuning.measured_sweeps()
    kinds = {name.split("/")[0] for name in sweeps}
    assert {"copy", "stencil_1d_r3", "stencil_1d_r64", "stencil_steps_8", "tree_sum_atomic",
            "shuffle_sum_atomic", "transpose", "matmul_tiled", "block_scan"} <= kinds
    assert all(len(runs) >= 3 for runs in sweeps.values())


def test_comparison_pairs_the_model_with_the_committed_measurement():
    case = tuning.sweep_case("stencil_1d", 1 << 20, radius=3)
    assert case.name == "stencil_1d_r3/2^20"
    rows = tuning.comparison(case)
    measured = tuning.measured_sweeps()[case.name]
    assert [r["block"] for r in rows] == sorted(measured)
    assert all(r["measured_ms"] == measured[r["block"]] and r["model_ms"] > 0 for r in rows)
    text = tuning.comparison_table(rows, case.name)
    assert "MODEL" in text and "MEASURED" in text and "model's pick" in text and "measured best" in text


def test_a_size_never_measured_is_model_only():
    case = tuning.sweep_case("stencil_1d", 1 << 16, radius=5)
    text = tuning.comparison_table(tuning.comparison(case))
    assert "MODEL only" in text


def test_bad_choices_are_clear_errors():
    with pytest.raises(ValueError, match="even"):
        tuning.sweep_case("stencil_steps", 1 << 16, steps=3)
    with pytest.raises(ValueError, match="unknown tuning kernel"):
        tuning.sweep_case("fft", 1 << 16)


def test_explorer_runs_without_anyone_touching_it():
    pytest.importorskip("ipywidgets")
    box = tuning.tuning_explorer("tree_sum_atomic", 1 << 20)
    assert "tree_sum_atomic/2^20" in box.run() and "MEASURED" in box.run()


def test_measure_on_gpu_says_none_without_a_gpu():
    import simcore
    if simcore.gpu_available()[0]:
        pytest.skip("a GPU is present: measure_on_gpu measures")
    assert tuning.measure_on_gpu(tuning.sweep_case("copy", 1 << 16)) is None


def test_breakdown_text_labels_the_model_and_names_the_bound():
    case = tuning.sweep_case("tree_sum_atomic", 1 << 20)
    rows = tuning.comparison(case)
    row = next(r for r in rows if r["block"] == 1024)
    text = tuning.breakdown_text(row["estimate"])
    assert text.startswith("MODEL estimate on the H200")
    assert f"{row['bound']} " in text and "<- the bound" in text
    assert "11 barriers per block" in text          # 1 + log2(1024) levels of the tree


def test_comparison_table_adds_a_live_column_and_its_best():
    case = tuning.sweep_case("copy", 1 << 20)
    rows = tuning.comparison(case)
    live = {b: 1.0 for b in case.blocks}
    live[128] = 0.5
    text = tuning.comparison_table(rows, "t", live)
    assert "GPU NOW ms" in text.splitlines()[1]
    line = next(l for l in text.splitlines() if l.split()[0] == "128")
    assert "0.5000" in line and "best on this GPU" in line
    assert "GPU NOW" not in tuning.comparison_table(rows, "t")


def test_explorer_shows_the_chosen_block_and_fits_narrow_windows():
    w = pytest.importorskip("ipywidgets")
    box = tuning.tuning_explorer("tree_sum_atomic", 1 << 20, block=512)
    assert "block size 512:" in box.run()
    sliders = [c for c in box.children[1].children + box.children[2].children]
    block_w = next(c.children[0] for c in sliders if isinstance(c.children[0], w.SelectionSlider))
    block_w.value = 1024
    assert "block size 1024:" in box.run() and "11 barriers per block" in box.run()
    for cell in sliders:
        control = cell.children[0]
        assert control.layout.width == "100%"
        assert cell.layout.flex.startswith("1 1") and cell.layout.min_width
        if hasattr(control.style, "description_width"):
            assert control.style.description_width == "initial"
    assert box.children[1].layout.flex_flow == "row wrap"
    assert box.children[-1].value[:4] == b"\x89PNG"         # the figure
