"""Kernel parameters. `T **`: the argument is a list of numpy arrays; the kernel gets
the table of their device addresses, on the simulator (its addresses) and on the GPU (CuPy's
`.data.ptr` of the copies), so one launch line runs on both. A struct passed by value: a numpy
structured scalar as in CuPy, or a dict of its members when it has pointers (each backend
writes its own address of the array)."""
import ctypes
import sys
import types

import numpy as np
import pytest

import simcore

ROWS = r'''
extern "C" __global__ void k(float **rows, int n, float *out) {
    int i = threadIdx.x;
    float s = 0;
    for (int r = 0; r < n; r++) { float *row = rows[r]; s += row[i]; row[i] = r; }
    out[i] = s;
}'''


def test_a_table_of_arrays_is_read_and_written_through():
    k = simcore.RawKernel(ROWS, "k")
    rows = [np.arange(32, dtype=np.float32) * (r + 1) for r in range(3)]
    out = np.zeros(32, np.float32)
    k((1,), (32,), (rows, np.int32(3), out))
    assert np.array_equal(out, np.arange(32) * 6)
    assert all(np.array_equal(rows[r], np.full(32, r)) for r in range(3))
    assert k.params[0].inner == np.float32


def test_an_array_of_the_table_that_is_too_short_is_out_of_bounds_by_name():
    k = simcore.RawKernel(ROWS, "k")
    rows = [np.zeros(32, np.float32), np.zeros(31, np.float32)]
    with pytest.raises(simcore.OutOfBounds) as info:
        k((1,), (32,), (rows, np.int32(2), np.zeros(32, np.float32)))
    assert "rows[1][31]" in str(info.value)


def test_a_table_entry_aliasing_another_argument_is_the_same_memory():
    src = r'''
    extern "C" __global__ void k(int **t, int *a) {
        t[0][threadIdx.x] = 5;
        __syncthreads();
        a[threadIdx.x] += 1;
    }'''
    a = np.zeros(32, np.int32)
    simcore.RawKernel(src, "k")((1,), (32,), ([a], a))
    assert np.array_equal(a, np.full(32, 6))


def test_a_table_that_points_past_its_end_is_out_of_bounds():
    k = simcore.RawKernel(ROWS, "k")
    with pytest.raises(simcore.OutOfBounds) as info:
        k((1,), (32,), ([np.zeros(32, np.float32)], np.int32(2), np.zeros(32, np.float32)))
    assert "rows[1]" in str(info.value)


@pytest.mark.parametrize("arg,words", [
    (np.zeros(4, np.uint64), "list of numpy arrays"),
    ([np.zeros(32, np.int32)], "must be an array of float32"),
    ([3.0], "must be a numpy array"),
])
def test_wrong_table_arguments_are_named(arg, words):
    k = simcore.RawKernel(ROWS, "k")
    with pytest.raises(simcore.LaunchError) as info:
        k((1,), (32,), (arg, np.int32(1), np.zeros(32, np.float32)))
    assert words in str(info.value) and "'rows'" in str(info.value)


def test_char_pointer_pointer_parameter_compiles():
    """GPUVerify's misc7: `char **argument`."""
    k = simcore.RawKernel("__global__ void foo(char **argument) { }", "foo")
    k((1,), (2,), ([np.zeros(4, np.int8)],))
    assert k.params[0].inner == np.int8


class _DeviceArray(np.ndarray):
    """A fake device array: `.data.ptr` is its address, as a CuPy array's is."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


def fake_cupy(monkeypatch, body):
    """A stand-in for CuPy whose kernel is `body(*device_args)`; device arrays are numpy copies."""
    class FakeKernel:
        def __call__(self, grid, block, args, shared_mem=0):
            body(*args)

    class FakeRawModule:
        def __init__(self, code=None, options=(), name_expressions=None, enable_cooperative_groups=False):
            pass

        def compile(self):
            pass

        def get_function(self, name):
            return FakeKernel()

    cp = types.ModuleType("cupy")
    cp.__version__ = "0.fake"
    cp.RawModule = FakeRawModule
    cp.asarray = lambda a: np.array(a, copy=True).view(_DeviceArray)
    cp.asnumpy = lambda d: np.array(d, copy=True)
    cp.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(
        deviceSynchronize=lambda: None, getDeviceCount=lambda: 1,
        getDeviceProperties=lambda i: {"name": b"Fake GPU", "major": 9, "minor": 0}),
        Device=lambda: types.SimpleNamespace(id=0))
    monkeypatch.setitem(sys.modules, "cupy", cp)


def test_the_gpu_backend_passes_the_copies_addresses(monkeypatch):
    seen = {}

    def body(table, n, out):      # the "kernel": rows[r][0] = 10 + r through the addresses
        seen["table"] = np.asarray(table).copy()
        for r, ptr in enumerate(np.asarray(table).tolist()):
            ctypes.c_float.from_address(int(ptr)).value = 10.0 + r

    fake_cupy(monkeypatch, body)
    k = simcore.RawModule(code=ROWS, backend="cupy").get_function("k")
    rows = [np.zeros(4, np.float32), np.zeros(4, np.float32)]
    k((1,), (4,), (rows, np.int32(2), np.zeros(4, np.float32)))
    assert seen["table"].dtype == np.uint64 and len(seen["table"]) == 2
    assert [r[0] for r in rows] == [10.0, 11.0], "written on the device copies, copied back in place"


# ------------------------------------------------------------------------------ structs by value
PARAMS = np.dtype([("n", np.int32), ("f", np.float32), ("d", np.float64)], align=True)
BY_VALUE = r'''
struct Params { int n; float f; double d; };
extern "C" __global__ void k(Params s, double *out) {
    s.n += threadIdx.x;                  // the thread's own copy
    Params *ps = &s;
    out[threadIdx.x] = ps->f * s.n + s.d;
}'''


def test_a_struct_passed_by_value_is_each_threads_own_copy():
    k = simcore.RawKernel(BY_VALUE, "k")
    v = np.zeros((), PARAMS)
    v["n"], v["f"], v["d"] = 2, 1.5, 0.25
    out = np.zeros(32)
    k((1,), (32,), (v[()], out), schedule="adversarial")
    assert np.array_equal(out, 1.5 * (2 + np.arange(32)) + 0.25)
    assert k.params[0].dtype == PARAMS and not k.params[0].is_pointer


def test_a_struct_with_another_layout_is_refused_by_name():
    k = simcore.RawKernel(BY_VALUE, "k")
    packed = np.zeros((), np.dtype([("n", np.int32), ("f", np.float32), ("d", np.float32)]))[()]
    with pytest.raises(simcore.LaunchError) as info:
        k((1,), (32,), (packed, np.zeros(32)))
    assert "'s'" in str(info.value) and "layout" in str(info.value)
    with pytest.raises(simcore.LaunchError) as info:
        k((1,), (32,), (3, np.zeros(32)))
    assert "structured scalar" in str(info.value)


NESTED = r'''
struct Inner { int *p; float scale[2]; };
struct Outer { int base; Inner in; };
extern "C" __global__ void k(Outer o) {
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    o.in.p[i] = o.base + (int)(o.in.scale[i & 1] * i);
}'''


def test_pointer_members_take_arrays_through_a_dict():
    k = simcore.RawKernel(NESTED, "k")
    out = np.zeros(64, np.int32)
    k((2,), (32,), ({"base": 7, "in": {"p": out, "scale": [1.0, 2.0]}},))
    t = np.arange(64)
    assert np.array_equal(out, 7 + np.where(t & 1, 2 * t, t))
    with pytest.raises(simcore.OutOfBounds) as info:
        k((2,), (32,), ({"base": 0, "in.p": out[:40]},))
    assert "o.in.p[40]" in str(info.value)


def test_a_pointer_member_needs_an_array():
    k = simcore.RawKernel(NESTED, "k")
    with pytest.raises(simcore.LaunchError) as info:
        k((1,), (32,), (np.zeros((), k.params[0].dtype)[()],))
    assert "in.p" in str(info.value) and "dict" in str(info.value)
    with pytest.raises(simcore.LaunchError) as info:
        k((1,), (32,), ({"in.p": 5},))
    assert "give it a numpy array" in str(info.value)


def test_the_gpu_backend_passes_a_structured_scalar_with_the_copys_address(monkeypatch):
    seen = {}

    def body(o):
        seen["o"] = o
        ctypes.c_int.from_address(int(o["in"]["p"])).value = 99

    fake_cupy(monkeypatch, body)
    k = simcore.RawModule(code=NESTED, backend="cupy").get_function("k")
    out = np.zeros(4, np.int32)
    k((1,), (4,), ({"base": 3, "in": {"p": out}},))
    assert isinstance(seen["o"], np.void) and seen["o"]["base"] == 3
    assert out[0] == 99
