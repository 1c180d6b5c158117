"""simcore's CuPy backend and the simulator-vs-GPU comparison.

CPU-side tests run everywhere: the clear error without CuPy, the simulator never importing
CuPy, NVRTC log parsing, and the backend's glue driven by a fake ``cupy`` module.
Tests marked ``gpu`` need CuPy and an NVIDIA GPU; elsewhere they skip with the reason
``simcore.cupy_backend.gpu_available()`` gives.
"""
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import simcore  # noqa: E402
from simcore import cupy_backend  # noqa: E402
from simcore.compare import compare_arrays  # noqa: E402
from simcore.errors import CompileError, LaunchError  # noqa: E402

GPU, GPU_REASON = cupy_backend.gpu_available()

TWICE = r"""
extern "C" __global__ void twice(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""


# ----------------------------------------------------------------------------- no CuPy
def test_gpu_available_never_raises_and_explains():
    ok, reason = cupy_backend.gpu_available()
    assert isinstance(ok, bool) and isinstance(reason, str) and reason
    if ok:
        assert reason.startswith("CuPy ") and " sees " in reason
    else:
        assert "CuPy is not installed" in reason or "no CUDA device" in reason \
            or "cannot be imported" in reason


def test_gpu_available_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)     # makes `import cupy` fail
    ok, reason = cupy_backend.gpu_available()
    assert ok is False
    assert reason == "CuPy is not installed (pip install 'gpu-barriers-course[gpu]')"


def test_gpu_available_is_false_when_there_is_no_gpu(monkeypatch):
    """`if simcore.gpu_available():` must not take the GPU branch on a machine without one
    (it returned the tuple (False, reason), which is true)."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    for probe in (cupy_backend.gpu_available, simcore.gpu_available):
        status = probe()
        assert not status and bool(status) is False
        assert status.reason.startswith("CuPy is not installed")
        ok, reason = status                       # still a (bool, reason) pair
        assert ok is False and reason == status.reason and status[0] is False


def test_gpu_available_is_true_when_cupy_sees_a_gpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", make_fake_cupy())
    status = simcore.gpu_available()
    assert status and status.reason == "CuPy 0.fake sees Fake GPU (sm_90)"


def test_cupy_module_without_cupy_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(LaunchError) as info:
        cupy_backend.CupyModule(TWICE, ())
    msg = str(info.value)
    assert "pip install 'gpu-barriers-course[gpu]'" in msg
    assert "cupy-cuda12x" in msg and "cupy-cuda13x" in msg


def test_backend_cupy_without_cupy_raises_install_error(monkeypatch):
    import simcore

    monkeypatch.setitem(sys.modules, "cupy", None)
    x = np.arange(8, dtype=np.float32)
    y = np.zeros_like(x)
    with pytest.raises(LaunchError, match=r"pip install 'gpu-barriers-course\[gpu\]'"):
        kern = simcore.RawModule(code=TWICE, backend="cupy").get_function("twice")
        kern((1,), (32,), (x, y, np.int32(8)))


def test_simulator_path_never_imports_cupy():
    code = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {str(ROOT)!r})
        import simcore
        import simcore.compare
        src = {TWICE!r}
        x = np.arange(40, dtype=np.float32); y = np.zeros_like(x)
        simcore.RawModule(code=src, backend="sim").get_function("twice")(
            (2,), (32,), (x, y, np.int32(40)))
        assert (y == 2 * x).all()
        bad = sorted(m for m in sys.modules if m == "cupy" or m.startswith("cupy."))
        print("CUPY_MODULES", bad)
        sys.exit(1 if bad else 0)
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


# ----------------------------------------------------------------------------- log parsing
NVRTC_LOG = """\
/tmp/tmpx1y2/4f3a.cu(5): warning #177-D: variable "z" was declared but never referenced
      int z;
          ^

/tmp/tmpx1y2/4f3a.cu(6): error: identifier "x" is undefined
      out[i] = x;
               ^

1 error detected in the compilation of "/tmp/tmpx1y2/4f3a.cu".
"""
LOG_SOURCE = "\n".join([
    'extern "C" __global__ void k(int *out)',
    "{",
    "    int i = threadIdx.x;",
    "    // comment",
    "    int z;",
    "    out[i] = x;",
    "}",
])


def test_parse_nvrtc_log_takes_first_error_not_warning():
    line, msg, src = cupy_backend.parse_nvrtc_log(NVRTC_LOG, LOG_SOURCE)
    assert line == 6
    assert msg == 'identifier "x" is undefined'
    assert src == "    out[i] = x;"


def test_parse_nvrtc_log_other_spellings():
    log = 'kernel.cu(12): error: expected a ";"\n'
    assert cupy_backend.parse_nvrtc_log(log, "\n" * 20)[:2] == (12, 'expected a ";"')
    log = 'default_program(2): catastrophic error: cannot open source file "x.h"'
    line, msg, src = cupy_backend.parse_nvrtc_log(log, "a\nb\n")
    assert (line, msg, src) == (2, 'cannot open source file "x.h"', "b")
    assert cupy_backend.parse_nvrtc_log("something odd", "x") == (None, "something odd", None)


# ----------------------------------------------------------------------------- fake CuPy
class CompileException(Exception):
    """Named like cupy.cuda.compiler.CompileException."""


class CUDARuntimeError(RuntimeError):
    pass


def make_fake_cupy(kernel_body=None, sync_error=None):
    """A stand-in for cupy: device arrays are numpy copies, a kernel is a Python function."""
    calls = []
    modules = []

    class FakeKernel:
        def __init__(self, name):
            self.name = name

        def __call__(self, grid, block, args, shared_mem=0):
            calls.append((self.name, grid, block, args, shared_mem))
            if kernel_body:
                kernel_body(*args)

    class FakeRawModule:
        def __init__(self, code=None, options=(), name_expressions=None, enable_cooperative_groups=False):
            self.code, self.options = code, options
            self.name_expressions, self.cooperative = name_expressions, enable_cooperative_groups
            modules.append(self)

        def compile(self):
            if "BROKEN" in self.code:
                raise CompileException(NVRTC_LOG)

        def get_function(self, name):
            if name not in self.code:
                raise RuntimeError("CUDA_ERROR_NOT_FOUND: named symbol not found")
            return FakeKernel(name)

    def synchronize():
        if sync_error:
            raise CUDARuntimeError(sync_error)

    cp = types.ModuleType("cupy")
    cp.__version__ = "0.fake"
    cp.RawModule = FakeRawModule
    cp.asarray = lambda a: np.array(a, copy=True)
    cp.asnumpy = lambda d: np.array(d, copy=True)
    cp.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(
        deviceSynchronize=synchronize, getDeviceCount=lambda: 1,
        getDeviceProperties=lambda i: {"name": b"Fake GPU", "major": 9, "minor": 0}),
        Device=lambda: types.SimpleNamespace(id=0))
    cp.calls = calls
    cp.modules = modules
    return cp


def test_name_expressions_and_cooperative_launch_reach_cupy(monkeypatch):
    """RawModule(..., name_expressions=..., enable_cooperative_groups=True) means the same on both
    backends: CuPy gets both (it launches with cuLaunchCooperativeKernel)."""
    cp = make_fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    src = "template <int N> __global__ void k(float *y) { y[threadIdx.x] = N; }"
    mod = simcore.RawModule(code=src, backend="cupy", name_expressions=("k<4>",), enable_cooperative_groups=True)
    assert cp.modules[0].name_expressions == ("k<4>",) and cp.modules[0].cooperative is True
    assert mod.get_function("k<4>").params[0].name == "y"


def test_template_outside_the_subset_still_reaches_the_gpu_by_its_name_expression(monkeypatch):
    cp = make_fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    src = "template <typename T> __global__ void k(T *y) { y[threadIdx.x] = sizeof(float4); }"
    kern = simcore.RawModule(code=src, backend="cupy", name_expressions=("k<double>",)).get_function("k<double>")
    assert kern.params[0].dtype == np.float64


def test_fake_gpu_available_sentence(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", make_fake_cupy())
    assert cupy_backend.gpu_available() == (True, "CuPy 0.fake sees Fake GPU (sm_90)")


def test_compile_error_has_line_message_and_source(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", make_fake_cupy())
    with pytest.raises(CompileError) as info:
        cupy_backend.CupyModule(LOG_SOURCE + "\n// BROKEN", ("-DX=1",))
    err = info.value
    assert err.line == 6
    assert 'identifier "x" is undefined' in str(err)
    assert err.source_line == "    out[i] = x;"


def test_launch_copies_results_back_in_place(monkeypatch):
    def body(x, y, n):      # the "kernel": y = 2x, and it also scribbles on x
        y[:n] = 2 * x[:n]
        x[0] = -1

    cp = make_fake_cupy(kernel_body=body)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    mod = cupy_backend.CupyModule(TWICE, ())
    x = np.arange(5, dtype=np.float32)
    y = np.zeros(5, dtype=np.float32)
    y_id = id(y)
    mod.launch("twice", (1, 1, 1), (32, 1, 1), (x, y, np.int32(5)), 0)
    assert id(y) == y_id
    assert y.tolist() == [0, 2, 4, 6, 8]
    assert x[0] == -1, "every array is copied back: the kernel may write any of them"
    name, grid, block, args, shared = cp.calls[0]
    assert (grid, block, shared) == ((1, 1, 1), (32, 1, 1), 0)
    assert args[2] == np.int32(5) and isinstance(args[2], np.int32)


def test_gpu_fault_becomes_launch_error_that_says_what_happened(monkeypatch):
    cp = make_fake_cupy(sync_error="cudaErrorIllegalInstruction: an illegal instruction "
                                   "was encountered")
    monkeypatch.setitem(sys.modules, "cupy", cp)
    mod = cupy_backend.CupyModule(TWICE, ())
    with pytest.raises(LaunchError) as info:
        mod.launch("twice", (1, 1, 1), (32, 1, 1),
                   (np.zeros(4, np.float32), np.zeros(4, np.float32), np.int32(4)), 0)
    msg = str(info.value)
    assert "illegal instruction" in msg and "twice" in msg
    assert "restart" in msg.lower()


def test_unknown_kernel_name_is_compile_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", make_fake_cupy())
    mod = cupy_backend.CupyModule(TWICE, ())
    with pytest.raises(CompileError, match="no __global__ function named 'nope'"):
        mod.launch("nope", (1, 1, 1), (1, 1, 1), (), 0)


# ----------------------------------------------------------------------------- compare
def test_compare_arrays_exact_for_ints_names_first_difference():
    a = np.arange(10, dtype=np.int32)
    b = a.copy()
    b[3] = 99
    b[7] = -1
    msg = compare_arrays("'out' (argument 0)", a, b)
    assert msg.startswith("'out' (argument 0): 2 of 10 elements differ (exact)")
    assert "[3] sim=3 gpu=99" in msg and "[7] sim=7 gpu=-1" in msg
    assert compare_arrays("x", a, a.copy()) is None


def test_compare_arrays_floats_use_tolerance():
    a = np.linspace(1, 2, 16, dtype=np.float32)
    b = a * np.float32(1 + 2e-7)          # an FMA-sized difference
    assert compare_arrays("x", a, b) is None
    b[5] += 1e-3
    assert "[5]" in compare_arrays("x", a, b)
    nan = np.array([np.nan, 1.0], np.float32)
    assert compare_arrays("x", nan, nan.copy()) is None


def test_run_both_without_gpu_runs_the_simulator_only(monkeypatch):
    from simcore import compare

    monkeypatch.setattr(cupy_backend, "gpu_available", lambda: (False, "no GPU in this test"))
    x = np.arange(40, dtype=np.float32)
    y = np.zeros_like(x)
    res = compare.run_both(TWICE, "twice", (2,), (32,), (x, y, np.int32(40)))
    assert res.gpu_ran is False and res.reason == "no GPU in this test" and res.ok
    assert "simulator only" in res.message
    assert (res.sim_args[1] == 2 * x).all()
    assert (y == 0).all(), "the caller's arrays are not modified"
    compare.assert_same(TWICE, "twice", (2,), (32,), (x, y, np.int32(40)))


def test_run_both_reports_a_disagreement(monkeypatch):
    """The GPU half is a fake CuPy that gets element 3 wrong."""
    from simcore import compare

    def wrong(x, y, n):
        y[:n] = 2 * x[:n]
        y[3] = 1234.0

    monkeypatch.setitem(sys.modules, "cupy", make_fake_cupy(kernel_body=wrong))
    x = np.arange(40, dtype=np.float32)
    y = np.zeros_like(x)
    res = compare.run_both(TWICE, "twice", (2,), (32,), (x, y, np.int32(40)))
    assert res.gpu_ran and not res.ok
    assert "[3] sim=6.0 gpu=1234.0" in res.message
    assert "'y'" in res.message
    with pytest.raises(AssertionError, match="1234"):
        compare.assert_same(TWICE, "twice", (2,), (32,), (x, y, np.int32(40)))


# ----------------------------------------------------------------------------- real GPU
@pytest.mark.parametrize("name", ["reverse_tile", "int_ops", "shfl_variants", "vote_ops",
                                  "named_barrier_halves", "atomics_global", "float_math"])
@pytest.mark.gpu
@pytest.mark.skipif(not GPU, reason=GPU_REASON)
def test_gpu_agrees_with_simulator_on_corpus(name):
    from conformance import corpus, runner
    from simcore import compare

    e = corpus.get(name)
    res = compare.run_both(e.source, e.kernel, e.grid, e.block, e.make_args(),
                           shared_mem=e.shared_mem, options=e.options)
    assert res.gpu_ran, res.reason
    assert res.ok, res.message
    problems = runner.check_outputs(runner.expected_outputs(e), res.gpu_args,
                                    rtol=e.rtol, atol=e.atol, other="gpu")
    assert problems is None, problems


@pytest.mark.gpu
@pytest.mark.skipif(not GPU, reason=GPU_REASON)
def test_gpu_compile_error_points_at_the_line():
    import simcore

    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=LOG_SOURCE, backend="cupy").get_function("k")
    assert info.value.line == 6
    assert "x" in str(info.value)


@pytest.mark.gpu
@pytest.mark.skipif(not GPU, reason=GPU_REASON)
def test_gpu_illegal_instruction_is_a_launch_error():
    """In a subprocess: after an illegal instruction the CUDA context is unusable."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from conformance import corpus
        from simcore import cupy_backend
        from simcore.errors import LaunchError
        e = corpus.get("named_count_not_mult32")
        mod = cupy_backend.CupyModule(e.source, e.options)
        try:
            mod.launch(e.kernel, (1, 1, 1), (512, 1, 1), e.make_args(), 0)
        except LaunchError as exc:
            print("LAUNCH_ERROR", exc)
            sys.exit(0)
        print("NO ERROR")
        sys.exit(1)
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "illegal instruction" in p.stdout.lower()
