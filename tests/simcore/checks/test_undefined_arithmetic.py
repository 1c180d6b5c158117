"""Undefined C arithmetic that simcore can see: a shift count outside
0..width-1 is an `undefined_shift` fault at its line, a signed multiplication that overflows a
warning (a GPU wraps it; never a fault that costs a legal kernel), an integer division by zero a
`division_by_zero` fault; on the general path and on the one-thread fast path alike."""
import warnings

import numpy as np
import pytest

import simcore


def launch(body, block=32, inputs=None):
    src = ("__global__ void k(unsigned *out, const int *in)\n{\n    int t = threadIdx.x;\n    int n = in[t];\n"
           + body + "\n}\n")
    inputs = np.arange(1, block + 1, dtype=np.int32) if inputs is None else np.asarray(inputs, np.int32)
    out = np.zeros(max(block, 4), np.uint32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simcore.RawModule(code=src).get_function("k")((1,), (block,), (out, inputs))
    return out, [str(w.message) for w in caught if issubclass(w.category, simcore.SimWarning)]


@pytest.mark.parametrize("block", [32, 1])
@pytest.mark.parametrize("expr", ["(1u << n) - 1u", "0xffffffffu >> n", "1u << (n - 40)", "(unsigned)(5 << -n)",
                                  "(unsigned)(1ll << (n + 40))"])
def test_a_shift_count_out_of_range_is_a_fault_at_its_line(expr, block):
    inputs = [32] * block          # 32 and 72: too wide; -8 and -32: negative
    # one-thread fast path: the shift in a loop
    body = f"    for (int r = 0; r < 3; r++)\n        out[t] = {expr};" if block == 1 else f"    out[t] = {expr};"
    with pytest.raises(simcore.KernelFault) as e:
        launch(body, block, inputs)
    assert e.value.kind == "undefined_shift"
    assert e.value.report["line"] in (5, 6) and "shift" in e.value.report["title"].lower()


def test_a_constant_shift_count_out_of_range_is_a_fault_too():
    with pytest.raises(simcore.KernelFault) as e:
        launch("    out[t] = 1u << 32;")
    assert e.value.kind == "undefined_shift" and e.value.report["line"] == 5


def test_shifts_in_range_and_guarded_ones_are_legal():
    out, warned = launch("    unsigned mask = (n >= 32) ? 0xffffffffu : ((1u << n) - 1u);\n"
                         "    out[t] = (n < 32 && (1u << n) > 4u) ? mask : 0u;", inputs=[3, 31, 32, 33] * 8)
    assert out[:4].tolist() == [7, 2 ** 31 - 1, 0, 0] and not warned


@pytest.mark.parametrize("block", [32, 1])
def test_signed_multiplication_overflow_is_a_warning_and_wraps(block):
    body = "    int v = n;\n    for (int r = 0; r < 2; r++)\n        v = v * 100000;\n    out[t] = (unsigned)v;"
    out, warned = launch(body, block, inputs=[30000] * block)
    want = np.int32(30000)
    for _ in range(2):
        want = np.int32((int(want) * 100000 + 2 ** 31) % 2 ** 32 - 2 ** 31)
    assert out[0] == np.uint32(want.view(np.uint32))
    assert len(warned) == 1 and "line 7" in warned[0] and "signed integer overflow" in warned[0]


def test_unsigned_and_in_range_products_do_not_warn():
    out, warned = launch("    unsigned u = 4000000000u;\n    out[t] = u * 3u + (unsigned)(n * 1000) + "
                         "(unsigned)((long long)n * 3000000000ll);")
    assert not warned


def test_division_by_zero_is_a_fault_on_both_paths():
    for block in (32, 1):
        with pytest.raises(simcore.KernelFault) as e:
            launch("    for (int r = 0; r < 2; r++) out[t] = 10 / (n - 1);", block, inputs=[1] * block)
        assert e.value.kind == "division_by_zero" and e.value.report["line"] == 5
