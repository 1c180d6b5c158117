"""What a student sees when something is wrong before or around the kernel itself.

CompileError: line, column and a caret, and the construct named; LaunchError: CUDA's wording
plus the numbers; KernelFault: never a raw traceback through simcore's internals.
"""
import os
import traceback

import numpy as np
import pytest

import simcore

SIMCORE_DIR = os.path.dirname(os.path.abspath(simcore.__file__))


def compile_error(src, options=()):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src, options=options)
    return info.value


def caret_column(text):
    """Column (1-based) of the caret under the quoted source line in str(CompileError)."""
    lines = str(text).splitlines()
    for k, ln in enumerate(lines):
        if ln.strip() == "^" and k > 0:
            indent = len(lines[k - 1]) - len(lines[k - 1].lstrip())
            src_indent = None
            return ln.index("^"), lines[k - 1], indent, src_indent
    raise AssertionError(f"no caret in:\n{text}")


def assert_caret_under(err, token):
    """The caret sits under `token` in the quoted line."""
    col, quoted, _, _ = caret_column(err)
    assert quoted[col:].startswith(token), f"caret not under {token!r}:\n{err}"


# ============================================================== CompileError
def test_syntax_error_missing_semicolon_has_line_column_caret():
    src = "__global__ void k(int *a)\n{\n    int x = 1\n    a[0] = x;\n}\n"
    e = compile_error(src)
    assert e.construct == "syntax"
    assert e.line in (3, 4)            # pycparser notices at the next token
    assert e.column is not None and e.column >= 1
    assert e.source_line is not None and e.source_line in src.splitlines()
    text = str(e)
    assert f"line {e.line}" in text
    assert "^" in text
    assert e.source_line.strip() in text


def test_syntax_error_column_points_at_token():
    src = "__global__ void k(int *a)\n{\n    a[0] = 1 2;\n}\n"
    e = compile_error(src)
    assert e.line == 3
    assert e.column == 14
    assert_caret_under(e, "2;")


def test_syntax_error_in_expression_has_a_location():
    src = "__global__ void k(int *a)\n{\n    a[0] = (1 + ;\n}\n"
    e = compile_error(src)
    assert e.line == 3, str(e)
    assert e.column is not None
    assert "^" in str(e)


@pytest.mark.parametrize("construct,src,line,token", [
    ("goto", "__global__ void k(int *a)\n{\n    goto end;\n    a[0] = 1;\nend:\n    a[1] = 2;\n}\n", 3, "goto"),
    # (unions run since issue 19: tests/simcore/frontend/test_cxx_constructs.py)
    ("bit-field", "struct P { int x : 3; };\n__global__ void k(int *a)\n{\n    a[0] = sizeof(P);\n}\n", 1, "x"),
    ("recursion", "__device__ int f(int n) { return n ? n * f(n - 1) : 1; }\n"
                  "__global__ void k(int *a)\n{\n    a[0] = f(3);\n}\n", 1, "f(n - 1)"),
    ("printf", "__global__ void k(int *a)\n{\n    printf(a);\n}\n", 3, "printf"),
    ("malloc", "__global__ void k(int *a)\n{\n    int *p = (int *)malloc(4);\n    a[0] = 1;\n}\n", 3, "malloc"),
    # function templates are supported (tests/simcore/frontend/test_templates.py); class templates are not
    ("template", "template <typename T>\nstruct Box { T v; };\n__global__ void k(int *a)\n{\n    a[0] = 1;\n}\n", 1,
     "template"),
])
def test_unsupported_construct_is_named(construct, src, line, token):
    e = compile_error(src)
    assert e.construct == construct
    assert construct in str(e)
    assert e.line == line
    assert_caret_under(e, token)


def test_undeclared_name_is_named():
    e = compile_error("__global__ void k(int *a)\n{\n    a[0] = zzz;\n}\n")
    assert e.construct == "zzz"
    assert "zzz" in str(e) and "not declared" in str(e)
    assert (e.line, e.column) == (3, 12)


def test_line_numbers_count_the_users_source_not_the_defines():
    src = "#define N 4\n\n__global__ void k(int *a)\n{\n    a[0] = N;\n    goto x;\n}\n"
    e = compile_error(src, options=("-DM=3", "-DTILE=256"))
    assert e.line == 6


def test_unknown_kernel_name_lists_kernels():
    mod = simcore.RawModule(code="__global__ void alpha(int *a) { a[0] = 1; }\n"
                                 "__global__ void beta(int *a) { a[0] = 2; }\n")
    with pytest.raises(simcore.CompileError) as info:
        mod.get_function("gamma")
    assert "alpha" in str(info.value) and "beta" in str(info.value)


def test_no_kernel_in_source():
    e = compile_error("__device__ int f(int x) { return x; }\n")
    assert "__global__" in str(e)


# ============================================================== LaunchError
SRC = r"""
__global__ void k(float *out, const float *in, int n)
{
    __shared__ float buf[SH];
    int t = threadIdx.x;
    if (t < n) buf[t] = in[t];
    __syncthreads();
    if (t < n) out[t] = buf[t];
}
"""


@pytest.fixture(scope="module")
def k():
    return simcore.RawModule(code=SRC, options=("-DSH=1024",)).get_function("k")


@pytest.fixture()
def arrays():
    x = np.zeros(2048, np.float32)
    return np.zeros_like(x), x


def launch_error(fn):
    with pytest.raises(simcore.LaunchError) as info:
        fn()
    return str(info.value)


def test_block_over_1024_threads(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (1025,), (o, x, 1)))
    assert "CUDA_ERROR_INVALID_VALUE" in msg and "invalid argument" in msg
    assert "1025" in msg and "1024" in msg


def test_2d_block_over_1024_threads(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (64, 32), (o, x, 1)))
    assert "2048" in msg and "1024" in msg


def test_block_z_over_64(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (1, 1, 65), (o, x, 1)))
    assert "blockDim.z" in msg and "65" in msg and "64" in msg


def test_grid_y_over_65535(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1, 70000), (32,), (o, x, 1)))
    assert "gridDim.y" in msg and "70000" in msg and "65535" in msg


@pytest.mark.parametrize("grid,block", [((0,), (32,)), ((1,), (0,)), ((2, -1), (32,))])
def test_zero_or_negative_dimensions(k, arrays, grid, block):
    o, x = arrays
    assert "CUDA_ERROR_INVALID_VALUE" in launch_error(lambda: k(grid, block, (o, x, 1)))


def test_too_much_static_shared_memory(arrays):
    o, x = arrays
    big = simcore.RawModule(code=SRC, options=("-DSH=20000",)).get_function("k")
    msg = launch_error(lambda: big((1,), (32,), (o, x, 1)))
    assert "80000" in msg and "49152" in msg and "shared memory" in msg


def test_too_much_dynamic_shared_memory(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, x, 1), shared_mem=48 * 1024))
    assert "4096 static" in msg and "49152 dynamic" in msg


def test_wrong_argument_count(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, x)))
    assert "takes 3 argument" in msg and "got 2" in msg
    assert "k(float * out, const float * in, int n)" in msg


def test_float_for_int_parameter(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, x, 32.0)))
    assert "'n'" in msg and "integer parameter" in msg and "32.0" in msg
    msg = launch_error(lambda: k((1,), (32,), (o, x, np.float32(32))))
    assert "integer parameter" in msg


def test_int_too_large_for_parameter(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, x, 2 ** 40)))
    assert "does not fit in int" in msg


def test_wrong_array_dtype(k, arrays):
    o, x = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, x.astype(np.float64), 1)))
    assert "'in'" in msg and "float32" in msg and "float64" in msg and "astype" in msg


def test_non_contiguous_array(k, arrays):
    o, _ = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, np.zeros(4096, np.float32)[::2], 1)))
    assert "contiguous" in msg and "ascontiguousarray" in msg
    f = np.asfortranarray(np.zeros((64, 32), np.float32))
    assert "contiguous" in launch_error(lambda: k((1,), (32,), (o, f, 1)))


def test_list_instead_of_array(k, arrays):
    o, x = arrays
    assert "numpy array" in launch_error(lambda: k((1,), (32,), (o, list(x), 1)))


def test_read_only_output(k, arrays):
    _, x = arrays
    ro = np.frombuffer(bytes(8192), np.float32)
    assert "read-only" in launch_error(lambda: k((1,), (32,), (ro, x, 1)))


def test_read_only_input_to_const_pointer_is_fine(k, arrays):
    o, _ = arrays
    ro = np.frombuffer(np.arange(2048, dtype=np.float32).tobytes(), np.float32)
    k((1,), (32,), (o, ro, 32))
    np.testing.assert_array_equal(o[:32], np.arange(32))


@pytest.mark.parametrize("option,value,words", [("schedule", "fast", "schedule"), ("model", "maxwell", "model"),
                                                ("checks", {"races": False}, "unknown check"),
                                                ("colour", 1, "unknown launch option")])
def test_bad_launch_options(k, arrays, option, value, words):
    o, x = arrays
    assert words in launch_error(lambda: k((1,), (32,), (o, x, 1), **{option: value}))


@pytest.mark.parametrize("checks,words", [
    ({"race": "off"}, "'race' must be True or False, not 'off'"),
    ({"race": 0}, "'race' must be True or False, not 0"),
    ({"out_of_bounds": None}, "'out_of_bounds' must be True or False, not None"),
])
def test_a_check_is_switched_only_by_true_or_false(k, arrays, checks, words):
    """checks={'race': 'off'} used to turn the race check on ('off' is a true string)."""
    o, x = arrays
    msg = launch_error(lambda: k((1,), (32,), (o, x, 1), checks=checks))
    assert words in msg and "checks=" in msg


def test_checks_switched_by_true_false_and_numpy_bools(k, arrays):
    o, x = arrays
    k((1,), (32,), (o, x, 1), checks={"race": False, "out_of_bounds": np.bool_(True)})


@pytest.mark.parametrize("grid,block,which", [(True, (32,), "grid"), ((1,), True, "block"),
                                              ((2, False), (32,), "grid"), ((1,), (np.bool_(True),), "block")])
def test_a_bool_is_no_launch_dimension(k, arrays, grid, block, which):
    """grid=True used to launch one block (True is the int 1 to Python)."""
    o, x = arrays
    msg = launch_error(lambda: k(grid, block, (o, x, 1)))
    assert msg.startswith(which) and "True or False" in msg


def test_args_not_a_tuple(k, arrays):
    o, _ = arrays
    assert "tuple" in launch_error(lambda: k((1,), (32,), o))


# ============================================================== no raw tracebacks through simcore
FAULTY = r"""
__global__ void racy(float *out, const float *in)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    out[t] = tile[63 - t];
}

__global__ void oob(float *out, const float *in)
{
    out[threadIdx.x] = in[threadIdx.x + 64];
}

__global__ void hang(int *a)
{
    if (threadIdx.x < 16) __syncthreads();
    a[threadIdx.x] = 1;
    __syncthreads();
}

__global__ void spin(int *a)
{
    while (a[0] == 0) { }
}
"""

INTERNAL = ("engine.py", "sync.py", "report.py", "races.py", "memory.py", "runner.py", "codegen.py",
            "context.py", "compiler.py", "<simcore kernel")


def internal_frames(exc):
    frames = traceback.extract_tb(exc.__traceback__)
    lowering = os.path.join(SIMCORE_DIR, "lower") + os.sep
    return [f for f in frames if f.filename.startswith(SIMCORE_DIR) and os.path.basename(f.filename) in INTERNAL
            or f.filename.startswith(lowering) or f.filename.startswith("<simcore")]


@pytest.mark.parametrize("name,kind", [("racy", "race"), ("oob", "out_of_bounds"), ("hang", "deadlock"),
                                       ("spin", "step_limit")])
def test_kernel_fault_has_no_internal_frames(name, kind):
    mod = simcore.RawModule(code=FAULTY)
    x = np.zeros(64, np.float32)
    args = (np.zeros(64, np.int32),) if name in ("hang", "spin") else (np.zeros_like(x), x)
    with pytest.raises(simcore.KernelFault) as info:
        mod.get_function(name)((1,), (64,), args, max_steps=2000)
    e = info.value
    assert e.kind == kind
    assert internal_frames(e) == [], traceback.format_tb(e.__traceback__)
    assert e.__cause__ is None
    assert e.__suppress_context__ or e.__context__ is None
    # the printed traceback never mentions simcore's engine
    printed = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    assert "engine.py" not in printed and "sync.py" not in printed
    assert "Traceback" in printed and str(e).splitlines()[0] in printed


def test_kernel_fault_report_is_structured():
    mod = simcore.RawModule(code=FAULTY)
    x = np.zeros(64, np.float32)
    with pytest.raises(simcore.DataRace) as info:
        mod.get_function("racy")((1,), (64,), (np.zeros_like(x), x))
    r = info.value.report
    for key in ("kind", "title", "explanation", "fix", "model", "schedule", "lines", "warps"):
        assert key in r, key
    assert r["kind"] == "race"
    assert "independent" in r["model"]
    assert r["schedule"] == "lockstep"


def test_compile_error_has_no_internal_frames():
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code="__global__ void k(int *a) {\n    goto x;\n}\n")
    assert internal_frames(info.value) == []


def test_launch_error_has_no_internal_frames(k, arrays):
    o, x = arrays
    with pytest.raises(simcore.LaunchError) as info:
        k((1,), (2048,), (o, x, 1))
    assert internal_frames(info.value) == []


def test_error_hierarchy():
    for cls in (simcore.CompileError, simcore.LaunchError, simcore.KernelFault, simcore.SimulatorError):
        assert issubclass(cls, simcore.SimcoreError)
    for cls in (simcore.DivergentBarrier, simcore.Deadlock, simcore.DataRace, simcore.InvalidMask,
                simcore.UndefinedValue, simcore.UninitializedRead, simcore.NamedBarrierError, simcore.OutOfBounds,
                simcore.StepLimit, simcore.MisalignedAccess, simcore.DivisionByZero):
        assert issubclass(cls, simcore.KernelFault)
    assert issubclass(simcore.SimWarning, UserWarning)


def test_device_printf_prints_every_lane_in_order(capsys):
    """printf is a student's first debugging tool: each lane's line, printed after the launch."""
    src = ('__global__ void k(const float *x) {\n'
           '    if (threadIdx.x < 3) printf("t=%d x=%.1f\\n", threadIdx.x, x[threadIdx.x]);\n}\n')
    k = simcore.RawKernel(src, "k")
    k((1,), (32,), (np.arange(32, dtype=np.float32),))
    assert capsys.readouterr().out == "t=0 x=0.0\nt=1 x=1.0\nt=2 x=2.0\n"
    assert k.last_launch.printed == ["t=0 x=0.0\n", "t=1 x=1.0\n", "t=2 x=2.0\n"]


def test_a_race_across_loop_rounds_puts_the_barrier_in_source_order():
    """The write (line 11) races with the next round's read (line 9): the fix must not say
    "between line 11 and line 9"."""
    src = r"""
__global__ void k(float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int r = 0; r < 2; r++) {
        float v = s[(t + 1) % 64];
        __syncthreads();
        s[t] = v + r;
    }
    out[t] = s[t];
}
"""
    kernel = simcore.RawModule(code=src).get_function("k")
    with pytest.raises(simcore.KernelFault) as info:
        kernel((1,), (64,), (np.zeros(64, np.float32),))
    fix = info.value.report["fix"]
    assert "between line 11 and line 9" not in fix
    assert "after line 11 and before line 9 runs again" in fix
