"""The preprocessor's macro expansion limit: a keyword-only option of `preprocess`, counted for
the whole source as the text is made, so a macro bomb stops with an error naming the macro and
the line before the huge text exists, wherever the preprocessor runs."""
import tracemalloc

import numpy as np
import pytest

import simcore
from simcore.frontend.preprocess import ExpansionLimitError, preprocess


def doubling(levels, leaf="x"):
    return "#define A0 " + leaf + "\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n"
                                                  for i in range(1, levels + 1))


def peak_memory_mb(call):
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / 2**20


def test_a_bomb_spread_over_many_lines_stops_at_the_line_and_macro_that_cross_the_limit():
    # each line's expansion is under the one-line size limit; together they would be 75 MB
    source = doubling(9, "x" * 1000) + "".join(f"int a{k} = A9;\n" for k in range(150))
    with pytest.raises(ExpansionLimitError) as info:
        preprocess(source)
    assert info.value.macro == "A9" and info.value.line == 14
    assert "A9" in str(info.value) and "work limit" in str(info.value)


def test_a_macro_bomb_is_stopped_using_little_memory():
    source = doubling(9, "x" * 1000) + "".join(f"int a{k} = A9;\n" for k in range(150))

    def run():
        with pytest.raises(ExpansionLimitError):
            preprocess(source)
    assert peak_memory_mb(run) < 32


def test_a_smaller_limit_is_a_keyword_option_and_named_in_the_message():
    source = doubling(12) + "int a = A12;\n"
    preprocess(source)                           # 16 kB of expansion: under the default
    with pytest.raises(ExpansionLimitError) as info:
        preprocess(source, max_expansion=10_000)
    assert "10,000 characters" in str(info.value) and info.value.macro == "A12"
    assert info.value.line == 14 and info.value.source_line == "int a = A12;"
    with pytest.raises(TypeError):
        preprocess(source, (), (), 10_000)       # keyword-only


def test_empty_macros_used_very_many_times_count_toward_the_limit():
    source = "#define E\n" + "".join(f"#define B{i} B{i - 1} B{i - 1}\n".replace("B0", "E")
                                     for i in range(1, 16)) + "B15\n"
    with pytest.raises(ExpansionLimitError) as info:
        preprocess(source, max_expansion=5_000)
    assert info.value.macro == "B15"


def test_a_legal_deep_macro_below_the_limit_still_works():
    source = ("#define STEP(x) ((x) + 1)\n"
              + "".join(f"#define L{i} STEP(L{i - 1})\n" for i in range(1, 40)).replace("L0", "0")
              + 'extern "C" __global__ void k(int *o) { o[threadIdx.x] = L39; }\n')
    o = np.zeros(4, np.int32)
    simcore.RawModule(code=source, backend="sim").get_function("k")((1,), (4,), (o,))
    assert list(o) == [39] * 4


def test_a_bomb_in_a_kernel_is_a_compile_error_naming_the_macro():
    source = doubling(24) + 'extern "C" __global__ void k(int *o) { int x = 1; o[0] = A24; }\n'
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=source, backend="sim")
    assert "macro expansion of A24" in str(info.value) and info.value.line == 26
