"""Odd arguments and launches: every mistake gives CompileError / LaunchError / KernelFault with a
message that names the problem (argument position and name, the limit, the valid choices), never
a raw Python exception or a SimulatorError. Findings are in .scratch/bugs-fuzz.md (F1-F16)."""
import resource
import warnings

import numpy as np
import pytest

import simcore

SRC = r'''
extern "C" __global__ void k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}
'''


@pytest.fixture(scope="module")
def K():
    return simcore.RawKernel(SRC, "k")


@pytest.fixture
def arrs():
    return np.zeros(64, np.float32), np.arange(64, dtype=np.float32)


def launch_error(fn, *needles):
    with pytest.raises(simcore.LaunchError) as info:
        fn()
    msg = str(info.value)
    for n in needles:
        assert n in msg, f"{n!r} not in: {msg}"
    return msg


def compile_error(src, *needles, **kw):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src, **kw)
    msg = str(info.value)
    for n in needles:
        assert n in msg, f"{n!r} not in: {msg}"
    return info.value


# ------------------------------------------------------------------------ arrays
def test_fortran_ordered_2d_array_is_refused_by_position_and_name(K, arrs):
    out, x = arrs
    f = np.asfortranarray(np.zeros((8, 8), np.float32))
    launch_error(lambda: K(1, 64, (f, x, 64)), "argument 1", "'out'", "contiguous", "ascontiguousarray")
    launch_error(lambda: K(1, 64, (out, np.asfortranarray(x.reshape(8, 8)), 64)), "argument 2", "'in'", "contiguous")


def test_one_dimensional_fortran_array_is_contiguous_and_works(K, arrs):
    out, x = arrs
    K(1, 64, (np.asfortranarray(out), x, 64))


def test_non_contiguous_slice_is_refused(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 32, (out[::2], x, 32)), "argument 1", "not contiguous")
    launch_error(lambda: K(1, 32, (out, x[::-1], 32)), "argument 2", "not contiguous")


def test_contiguous_offset_view_is_device_memory_in_place(K):
    big = np.zeros(80, np.float32)
    x = np.arange(64, dtype=np.float32)
    K(1, 64, (big[8:72], x, 64))
    assert np.array_equal(big[8:72], 2 * x) and not big[:8].any() and not big[72:].any()


def test_wrong_dtype_names_both_types_and_the_fix(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out.astype(np.float64), x, 64)), "argument 1", "float32", "float64", ".astype")


def test_non_array_for_pointer(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, ([0.0] * 64, x, 64)), "argument 1", "numpy array", "list")
    launch_error(lambda: K(1, 64, (1.0, x, 64)), "argument 1", "numpy array", "float")


def test_numpy_bool_array_for_bool_pointer():
    k = simcore.RawKernel('__global__ void k(bool *f, const int *x){ int i = threadIdx.x; f[i] = x[i] > 2; }', "k")
    f = np.zeros(8, np.bool_)
    k(1, 8, (f, np.arange(8, dtype=np.int32)))
    assert f.tolist() == [False] * 3 + [True] * 5
    launch_error(lambda: k(1, 8, (f.view(np.uint8), np.arange(8, dtype=np.int32))), "argument 1", "bool", "uint8")


def test_read_only_array_for_const_param_works_and_for_non_const_is_refused(K, arrs):
    out, x = arrs
    ro = x.copy()
    ro.flags.writeable = False
    K(1, 64, (out, ro, 64))
    assert np.array_equal(out, 2 * x)
    launch_error(lambda: K(1, 64, (ro, x, 64)), "argument 1", "'out'", "read-only")


def test_writing_a_read_only_array_through_a_cast_is_a_fault_not_a_crash():
    """F10: was SimulatorError (numpy 'assignment destination is read-only')."""
    k = simcore.RawKernel('__global__ void k(const int *a){ int *b = (int*)a; b[threadIdx.x] = 1; }', "k")
    ro = np.zeros(4, np.int32)
    ro.flags.writeable = False
    with pytest.raises(simcore.KernelFault) as info:
        k(1, 4, (ro,))
    assert "read-only" in str(info.value) and not ro.any()


def test_write_through_const_pointer_is_a_compile_error():
    """F9: nvcc refuses it ('expression must be a modifiable lvalue'); simcore used to run it."""
    err = compile_error('__global__ void k(const int *a){ a[threadIdx.x] = 1; }', "const")
    assert err.line == 1


def test_np_matrix_for_a_pointer_does_not_crash():
    """F11: was SimulatorError (IndexError)."""
    k = simcore.RawKernel('__global__ void k(int *o){ o[threadIdx.x] = threadIdx.x; }', "k")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        m = np.matrix([[0, 0, 0, 0]], dtype=np.int32)
    try:
        k(1, 4, (m,))
    except simcore.LaunchError:
        return
    assert np.asarray(m).ravel().tolist() == [0, 1, 2, 3]


# ------------------------------------------------------------------------ scalars
def test_zero_d_arrays_are_scalars(K, arrs):
    out, x = arrs
    K(1, 64, (out, x, np.array(64)))
    K(1, 64, (out, x, np.array(64, np.int8)))
    launch_error(lambda: K(1, 64, (out, x, np.array(64.0))), "argument 3", "'n'", "floating-point")
    launch_error(lambda: K(1, 64, (out, x, np.array([64]))), "argument 3", "scalar parameter", "array")


def test_int64_and_huge_ints_are_range_checked(K, arrs):
    out, x = arrs
    K(1, 64, (out, x, np.int64(64)))
    launch_error(lambda: K(1, 64, (out, x, np.int64(2 ** 40))), "argument 3", "'n'", "does not fit in int",
                 "2147483647")
    launch_error(lambda: K(1, 64, (out, x, 2 ** 100)), "argument 3", "does not fit")
    launch_error(lambda: K(1, 64, (out, x, np.uint64(2 ** 64 - 1))), "argument 3", "does not fit")


@pytest.mark.parametrize("ctype,value,limit", [
    ("unsigned int", -1, "0 to 4294967295"), ("unsigned char", 256, "0 to 255"), ("short", 40000, "32767"),
    ("long long", 2 ** 63, "9223372036854775807"), ("unsigned long long", -1, "18446744073709551615"),
    ("size_t", -1, "18446744073709551615")])
def test_scalar_range_checks_name_the_type_limits(ctype, value, limit):
    k = simcore.RawKernel(f'__global__ void k({ctype} v, int *o){{ o[0] = (int)v; }}', "k")
    launch_error(lambda: k(1, 1, (value, np.zeros(1, np.int32))), "argument 1", "'v'", "does not fit", limit)


def test_boundary_values_are_accepted():
    k = simcore.RawKernel('__global__ void k(unsigned long long u, int i, long long *o){ o[0] = (long long)u; o[1] = i; }',
                          "k")
    o = np.zeros(2, np.int64)
    k(1, 1, (2 ** 64 - 1, -2 ** 31, o))
    assert o.tolist() == [-1, -2 ** 31]


def test_non_numbers_for_scalars(K, arrs):
    out, x = arrs
    for bad, tname in (("64", "str"), (None, "NoneType"), (1j, "complex")):
        launch_error(lambda: K(1, 64, (out, x, bad)), "argument 3", "'n'", "must be a number", tname)


def test_float_for_int_param_is_refused(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64.0)), "argument 3", "integer parameter", "floating-point")


def test_float_param_out_of_range_is_refused():
    """F12: was silently inf with a leaked numpy RuntimeWarning."""
    k = simcore.RawKernel('__global__ void k(float f, float *o){ o[0] = f; }', "k")
    o = np.zeros(1, np.float32)
    launch_error(lambda: k(1, 1, (1e300, o)), "argument 1", "'f'", "does not fit in float")
    k(1, 1, (float("inf"), o))
    assert np.isinf(o[0])


def test_bool_param_message_says_bool():
    k = simcore.RawKernel('__global__ void k(bool b, int *o){ o[0] = b ? 5 : 7; }', "k")
    o = np.zeros(1, np.int32)
    k(1, 1, (np.bool_(True), o))
    assert o[0] == 5
    msg = launch_error(lambda: k(1, 1, (0.0, o)), "argument 1", "'b'")
    assert "bool" in msg and "integer parameter" not in msg


# ------------------------------------------------------------------------ grid / block
def test_grid_and_block_as_lists_and_numpy_ints(K, arrs):
    out, x = arrs
    K([1], [64], (out, x, 64))
    K(np.int32(1), np.int64(64), (out, x, 64))
    K((np.uint8(1),), (np.int16(64),), (out, x, 64))
    assert K.last_launch.grid == (1, 1, 1) and K.last_launch.block == (64, 1, 1)


@pytest.mark.parametrize("grid,block,needles", [
    (1.0, 64, ("grid", "int or a tuple")),
    (np.array([1]), 64, ("grid", "int or a tuple")),
    (1, (1, 1, 1, 1), ("block", "1 to 3")),
    (1, (), ("block", "1 to 3")),
    (-1, 64, ("grid", "negative", "at least 1")),
    (1, (0,), ("block", "at least 1")),
    (1, (1025, 1, 1), ("1025 threads", "at most 1024")),
    (1, (32, 32, 2), ("2048 threads", "at most 1024")),
    (1, (1, 1, 65), ("blockDim.z = 65", "64")),
    (2 ** 31, 64, ("gridDim.x = 2147483648", "2147483647")),
    ((1, 65536), 64, ("gridDim.y = 65536", "65535")),
])
def test_bad_dims_name_the_limit(K, arrs, grid, block, needles):
    out, x = arrs
    launch_error(lambda: K(grid, block, (out, x, 64)), *needles)


def test_block_of_1024_runs():
    k = simcore.RawKernel('__global__ void k(int *o){ o[threadIdx.x] = threadIdx.x; }', "k")
    o = np.zeros(1024, np.int32)
    k(1, (1024, 1, 1), (o,))
    assert np.array_equal(o, np.arange(1024))


def test_huge_grid_within_cuda_limits_is_refused_up_front_not_hung(K, arrs):
    """F5: (2**31-1) x 64 used to run for hours."""
    out, x = arrs
    launch_error(lambda: K((2 ** 31 - 1,), (64,), (out, x, 0)), "threads", "smaller grid")
    launch_error(lambda: K((65535, 65535, 65535), (1024,), (out, x, 0)), "threads")


# ------------------------------------------------------------------------ shared_mem
@pytest.mark.parametrize("smem", [-1, 1.5, "16", None])
def test_bad_shared_mem(K, arrs, smem):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), shared_mem=smem), "shared_mem")


def test_too_much_shared_mem_names_the_limit(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), shared_mem=10 ** 6), "1000000", "49152")
    K(1, 64, (out, x, 64), shared_mem=np.int64(16))


# ------------------------------------------------------------------------ args
def test_argument_count(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64, 5)), "takes 3 argument(s), got 4", "float * out")
    launch_error(lambda: K(1, 64, (out, x)), "takes 3 argument(s), got 2")


@pytest.mark.parametrize("args,tname", [(None, "NoneType"), ({0: 1}, "dict"), (np.zeros(3), "ndarray")])
def test_args_not_a_tuple(K, args, tname):
    launch_error(lambda: K(1, 64, args), "args must be a tuple", tname)


def test_args_as_list_is_accepted(K, arrs):
    out, x = arrs
    K(1, 64, [out, x, 64])
    assert np.array_equal(out, 2 * x)


def test_same_array_twice_aliases_and_races_are_found():
    k = simcore.RawKernel('__global__ void k(int *out, const int *in){ int i = threadIdx.x; out[i] = in[i] + 1; }', "k")
    a = np.arange(64, dtype=np.int32)
    k(1, 64, (a, a))        # each thread reads and writes only its own element: no race, in place
    assert np.array_equal(a, np.arange(64) + 1)
    r = simcore.RawKernel('__global__ void k(int *out, const int *in){ int i = threadIdx.x; '
                          'out[i] = in[(i + 1) % blockDim.x]; }', "k")
    with pytest.raises(simcore.DataRace):
        r(1, 64, (a, a))


def test_overlapping_views_alias_too():
    """F13: partially overlapping views used to be separate memories (race missed)."""
    r = simcore.RawKernel('__global__ void k(int *out, const int *in){ int i = threadIdx.x; '
                          'out[i] = in[(i + 1) % blockDim.x]; }', "k")
    c = np.arange(128, dtype=np.int32)
    with pytest.raises(simcore.DataRace):
        r(1, 64, (c[:64], c[:100]))
    with pytest.raises(simcore.DataRace):
        r(1, 64, (c[:64], c[1:65]))


# ------------------------------------------------------------------------ sources and names
def test_unknown_kernel_name_lists_the_kernels():
    src = '__global__ void alpha(int *a){ } __global__ void beta(int *a){ }'
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src).get_function("gamma")
    assert "gamma" in str(info.value) and "alpha" in str(info.value) and "beta" in str(info.value)
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawKernel(src, "gamma")
    assert "alpha" in str(info.value)


@pytest.mark.parametrize("code,needle", [(b"__global__ void k(){}", "bytes"), (None, "code"), (5, "int"),
                                         ("", "no __global__"), ("   \n\n", "no __global__"),
                                         ("// only a comment\n", "no __global__"),
                                         ("__device__ int f(int x){ return x + 1; }", "no __global__")])
def test_bad_sources(code, needle):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=code)
    assert needle in str(info.value)


def test_two_kernels_with_the_same_name_is_a_compile_error():
    """F8: the last definition used to win silently."""
    src = ('extern "C" __global__ void k(int *a){ a[threadIdx.x] = 1; }\n'
           'extern "C" __global__ void k(int *a){ a[threadIdx.x] = 2; }\n')
    err = compile_error(src, "redefinition", "'k'")
    assert err.line == 2


def test_crlf_source_compiles_with_the_right_lines():
    """F6: CRLF line endings used to be 'Illegal character \\r'."""
    src = '__global__ void k(int *a)\r\n{\r\n    a[threadIdx.x] = 1;\r\n}\r\n'
    k = simcore.RawKernel(src, "k")
    a = np.zeros(4, np.int32)
    k(1, 4, (a,))
    assert a.tolist() == [1] * 4
    err = compile_error('__global__ void k(int *a)\r\n{\r\n    a[0] = zz;\r\n}\r\n', "zz")
    assert err.line == 3


@pytest.mark.parametrize("options,needle", [((5,), "not a string"), (("-D",), "defines no name"),
                                            (("-D=3",), "defines no name")])
def test_bad_compile_options(options, needle):
    """F7: options were not validated (raw TypeError)."""
    compile_error('__global__ void k(int *a){ a[0] = 1; }', needle, options=options)


def test_options_none_and_a_single_string():
    src = '__global__ void k(int *a){ a[threadIdx.x] = X; }'
    a = np.zeros(2, np.int32)
    simcore.RawKernel(src.replace("X", "3"), "k", options=None)(1, 2, (a,))
    simcore.RawKernel(src, "k", options=("-DX=7",))(1, 2, (a,))
    assert a.tolist() == [7, 7]


def test_unknown_backend():
    with pytest.raises(simcore.LaunchError) as info:
        simcore.RawModule(code='__global__ void k(){}', backend="gpu")
    assert "'sim'" in str(info.value) and "gpu" in str(info.value)


# ------------------------------------------------------------------------ launch options
def test_launch_option_typo(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), shedule="random"), "unknown launch option", "shedule")


@pytest.mark.parametrize("checks,needles", [({"nonsense": True}, ("nonsense", "race", "out_of_bounds")),
                                            (["race", "bogus"], ("bogus", "divergent_barrier")),
                                            (1, ("checks", "race"))])
def test_bad_checks(K, arrs, checks, needles):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), checks=checks), *needles)


def test_checks_as_a_single_name(K, arrs):
    """F3: checks="race" used to iterate its characters ('unknown check r')."""
    out, x = arrs
    K(1, 64, (out, x, 64), checks="race")


@pytest.mark.parametrize("schedule", ["fast", None, ["random"]])
def test_bad_schedule_lists_the_schedules(K, arrs, schedule):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), schedule=schedule), "schedule", "lockstep", "adversarial")


def test_bad_model(K, arrs):
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), model="pascal"), "pascal", "independent", "stack")


@pytest.mark.parametrize("seed", ["abc", None, -1, 1.5])
def test_bad_seed(K, arrs, seed):
    """F2: was SimulatorError."""
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), schedule="random", seed=seed), "seed")


@pytest.mark.parametrize("max_steps", [-5, 0, "10", 10.5, "abc", [1]])
def test_bad_max_steps(K, arrs, max_steps):
    """F4: negative gave a StepLimit fault blaming the kernel; strings gave SimulatorError."""
    out, x = arrs
    launch_error(lambda: K(1, 64, (out, x, 64), max_steps=max_steps), "max_steps")


def test_trace_on_a_full_size_launch_stays_small():
    src = ('__global__ void k(int *o){ __shared__ int s[1024]; int i = threadIdx.x; s[i] = i; '
           '__syncthreads(); o[blockIdx.x * 1024 + i] = s[1023 - i]; }')
    k = simcore.RawKernel(src, "k")
    o = np.zeros(64 * 1024, np.int32)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    k(64, 1024, (o,), trace=True)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 1024, f"trace=True on 64 x 1024 grew the process by {grown_mb:.0f} MB"
    assert np.array_equal(o.reshape(64, 1024), np.tile(np.arange(1023, -1, -1), (64, 1)))
    tr = k.last_launch.trace
    assert isinstance(tr, simcore.Trace) and tr.steps
    assert any(s.event == "barrier_release" for s in tr.steps)


# ------------------------------------------------------------------------ printf
def test_printf_with_mismatched_format_does_not_crash(capsys):
    k = simcore.RawKernel('__global__ void k(int *o){ printf("%d %f %s\\n", threadIdx.x); }', "k")
    k(1, 2, (np.zeros(1, np.int32),))
    printed = k.last_launch.printed
    assert len(printed) == 2 and all("does not match" in p for p in printed)
    k2 = simcore.RawKernel('__global__ void k(int *o){ printf("%q %", 1); }', "k")
    k2(1, 1, (np.zeros(1, np.int32),))
    capsys.readouterr()


def test_printf_without_a_literal_format_is_a_compile_error():
    err = compile_error('__global__ void k(int *o){ printf(o); }', "string literal")
    assert err.line == 1


def test_printf_buffer_is_bounded(capsys):
    k = simcore.RawKernel('__global__ void k(int *o){ for (int j = 0; j < 100; j++) printf("%d\\n", j); }', "k")
    k(1, 64, (np.zeros(1, np.int32),))
    assert len(k.last_launch.printed) <= 4096 + 1          # and one line saying output stopped
    assert "stopped at 4,096 lines" in k.last_launch.printed[-1]
    capsys.readouterr()


def test_float_range_check_leaks_no_numpy_warning():
    k = simcore.RawKernel('__global__ void k(float f, float *o){ o[0] = f; }', "k")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(simcore.LaunchError):
            k(1, 1, (1e300, np.zeros(1, np.float32)))
