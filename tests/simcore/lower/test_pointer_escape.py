"""Pointers to local variables that are reassigned, chosen per thread, stepped in loops, given
to built-ins: such a local lives in local memory (one copy per thread, its own
region), with bounds, undefined-value and alignment checks; locals whose address never
escapes keep registers and compile-time pointers."""
import numpy as np
import pytest

import simcore


def kernel(src, name="k"):
    return simcore.RawModule(code=src).get_function(name)


def test_pointer_chosen_per_thread_between_a_local_and_global_memory():
    k = kernel(r'''
    extern "C" __global__ void k(const float *a, float *out) {
        int i = threadIdx.x;
        float x = 100.0f + i;
        const float *p = a + i;
        if (i & 1) p = &x;
        out[i] = *p * 2.0f;
    }''')
    a, out = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    k((1,), (32,), (a, out))
    t = np.arange(32)
    assert np.array_equal(out, np.where(t & 1, 100 + t, t) * 2)
    assert [v.name for v in k.program.local_vars] == ["x"]


def test_writes_through_a_reassigned_pointer_reach_the_variable():
    k = kernel(r'''
    extern "C" __global__ void k(int *o) {
        int x = 1, y = 2;
        int *p = &x;
        p = (threadIdx.x < 16) ? &x : &y;
        *p += 10;
        p = &y;
        *p *= 3;
        o[threadIdx.x] = x * 100 + y;
    }''')
    o = np.zeros(32, np.int32)
    k((1,), (32,), (o,), schedule="adversarial")
    t = np.arange(32)
    assert np.array_equal(o, np.where(t < 16, 11 * 100 + 6, 100 + 36))


def test_pointer_stepped_through_a_local_array_in_a_loop():
    k = kernel(r'''
    extern "C" __global__ void k(int *o) {
        int v[4] = {1, 2, 3, 4};
        int *p = v;
        int s = 0;
        for (int j = 0; j < 4; j++) { s += *p * (int)threadIdx.x; p++; }
        o[threadIdx.x] = s;
    }''')
    o = np.zeros(32, np.int32)
    k((1,), (32,), (o,))
    assert np.array_equal(o, 10 * np.arange(32))


def test_local_struct_through_a_reassigned_pointer():
    k = kernel(r'''
    struct S { int a; float b; };
    extern "C" __global__ void k(float *o) {
        S s = {1, 2.5f};
        S *ps;
        ps = &s;
        ps->b += ps->a + threadIdx.x;
        o[threadIdx.x] = s.b;
    }''')
    o = np.zeros(32, np.float32)
    k((1,), (32,), (o,))
    assert np.array_equal(o, 3.5 + np.arange(32))


def test_an_atomic_on_a_local_variable_is_undefined_and_named():
    """PTX atomics need global or shared memory (nvcc: "Cannot do atomic on local memory")."""
    k = kernel('extern "C" __global__ void k(int *o) {\n  int c = threadIdx.x;\n'
               '  int old = atomicAdd(&c, 5);\n  o[threadIdx.x] = old + c;\n}')
    with pytest.raises(simcore.OutOfBounds) as info:
        k((1,), (32,), (np.zeros(32, np.int32),))
    assert info.value.line == 3 and "local variable c" in str(info.value)


def test_each_thread_has_its_own_copy_so_no_race_is_reported():
    k = kernel(r'''
    extern "C" __global__ void k(int *o) {
        int a;
        int *p;
        p = &a;
        *p = threadIdx.x + blockIdx.x * 64;
        __syncthreads();
        o[threadIdx.x + blockIdx.x * blockDim.x] = a;
    }''')
    o = np.zeros(128, np.int32)
    k((2,), (64,), (o,), schedule="random", seed=3)
    t = np.arange(128)
    assert np.array_equal(o, t % 64 + (t // 64) * 64)


def test_writing_past_a_local_through_its_pointer_is_out_of_bounds():
    k = kernel('extern "C" __global__ void k(int *o) {\n  int b = 0;\n  int *d;\n  d = &b;\n'
               '  d[1] = 200;\n  o[threadIdx.x] = b;\n}')
    with pytest.raises(simcore.OutOfBounds) as info:
        k((1,), (32,), (np.zeros(32, np.int32),))
    assert info.value.line == 5 and "local variable 'b'" in str(info.value)


def test_reading_an_unwritten_local_through_a_pointer_is_undefined():
    k = kernel('extern "C" __global__ void k(int *o) {\n  int a;\n  int *p;\n  p = &a;\n'
               '  o[threadIdx.x] = *p;\n}')
    with pytest.raises(simcore.UndefinedValue) as info:
        k((1,), (32,), (np.zeros(32, np.int32),))
    assert info.value.line == 5


def test_a_device_function_pointing_its_parameter_at_its_own_local():
    """GPUVerify's testinterprocedural3: the caller's pointer is not changed."""
    k = kernel(r'''
    __device__ void bar(int *p) { int a = 7; p = &a; *p += 1; }
    extern "C" __global__ void k(int *q) {
        bar(q);
        q[threadIdx.x] += 1;
    }''')
    q = np.zeros(32, np.int32)
    k((1,), (32,), (q,))
    assert np.array_equal(q, np.ones(32))


def test_pointers_that_never_change_stay_compile_time():
    k = kernel(r'''
    __device__ void inc(int *p) { *p += 1; }
    extern "C" __global__ void k(int *o) {
        int x = threadIdx.x;
        int *p = &x;
        inc(p);
        o[threadIdx.x] = *p;
    }''')
    o = np.zeros(32, np.int32)
    k((1,), (32,), (o,))
    assert np.array_equal(o, np.arange(32) + 1)
    assert k.program.local_vars == []


def test_the_address_of_a_device_function_parameter_escaping():
    k = kernel(r'''
    __device__ int f(int v) { int *p; p = &v; *p += 1; return v * 10 + *p; }
    extern "C" __global__ void k(int *o) { int t = threadIdx.x; o[t] = f(t); }''')
    o = np.zeros(32, np.int32)
    k((1,), (32,), (o,))
    assert np.array_equal(o, (np.arange(32) + 1) * 11)


def test_a_pointer_stepped_past_a_local_array_is_out_of_bounds_on_one_thread_too():
    k = kernel('extern "C" __global__ void k(int *o, int n) {\n  int v[8];\n  int *p = v;\n'
               '  for (int i = 0; i < n; i++) { *p = i * i; p++; }\n  int s = 0;\n'
               '  for (int *q = v; q < v + n; q++) s += *q;\n  o[0] = s;\n}')
    o = np.zeros(1, np.int32)
    k((1,), (1,), (o, np.int32(8)))
    assert o[0] == sum(i * i for i in range(8))
    with pytest.raises(simcore.OutOfBounds) as info:
        k((1,), (1,), (o, np.int32(9)))
    assert info.value.line == 4 and "v[8]" in str(info.value)
