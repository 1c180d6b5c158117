"""Structs, typedef, sizeof, __align__, vector types, pointers to locals, __device__ and
__constant__ variables with RawModule.get_global, function attributes."""
import ctypes

import numpy as np
import pytest

import simcore


def launch(src, name, grid, block, args, **kw):
    simcore.RawModule(code=src).get_function(name)(grid, block, args, **kw)
    return args


def compile_error(src):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src)
    return info.value


# ------------------------------------------------------------------------------------ structs
POINT = np.dtype([("x", np.float32), ("y", np.float32), ("id", np.int32)], align=True)


def test_array_of_structs_in_global_memory_with_dot_and_arrow():
    src = r'''
    struct Point { float x, y; int id; };
    extern "C" __global__ void k(Point *pts, float *norm2) {
        int i = threadIdx.x;
        Point *p = &pts[i];
        p->id = i * 3;
        norm2[i] = pts[i].x * pts[i].x + p->y * p->y;
    }'''
    pts = np.zeros(32, POINT)
    pts["x"], pts["y"] = np.arange(32), 2
    norm = np.zeros(32, np.float32)
    launch(src, "k", 1, 32, (pts, norm))
    assert (pts["id"] == np.arange(32) * 3).all()
    assert np.allclose(norm, np.arange(32) ** 2 + 4)


def test_struct_copy_and_structs_through_device_functions():
    src = r'''
    typedef struct { float re, im; } Complex;
    __device__ Complex cmul(Complex a, Complex b) {
        Complex c = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
        return c;
    }
    extern "C" __global__ void k(const Complex *a, Complex *out) {
        Complex x = a[threadIdx.x];
        Complex y = x;            // a copy: changing y leaves x alone
        y.im = -y.im;
        out[threadIdx.x] = cmul(x, y);
    }'''
    a = (np.arange(32) + 1j * np.arange(32, 64)).astype(np.complex64)
    out = np.zeros(32, np.complex64)
    launch(src, "k", 1, 32, (a, out))
    assert np.allclose(out, a * np.conj(a))


def test_shared_array_of_structs_and_padding():
    src = r'''
    struct Rec { char tag; double value; int count; };
    extern "C" __global__ void k(double *out, int *size) {
        __shared__ Rec recs[64];
        recs[threadIdx.x].value = threadIdx.x * 0.5;
        recs[threadIdx.x].count = threadIdx.x;
        __syncthreads();
        Rec r = recs[63 - threadIdx.x];
        out[threadIdx.x] = r.value + r.count;
        if (threadIdx.x == 0) { size[0] = sizeof(Rec); size[1] = sizeof(recs); size[2] = sizeof(r.count); }
    }'''
    out, size = np.zeros(64), np.zeros(3, np.int32)
    launch(src, "k", 1, 64, (out, size))
    assert np.allclose(out, (63 - np.arange(64)) * 1.5)
    assert size.tolist() == [24, 24 * 64, 4]


def test_align_and_sizeof_of_vector_types():
    src = r'''
    struct __align__(16) A { float v; };
    typedef struct __align__(8) { short s; } B;
    extern "C" __global__ void k(int *s) {
        s[0] = sizeof(A); s[1] = sizeof(B); s[2] = sizeof(float4); s[3] = sizeof(int2);
        s[4] = sizeof(double2); s[5] = sizeof(float3); s[6] = sizeof(uchar4);
    }'''
    s = np.zeros(7, np.int32)
    launch(src, "k", 1, 1, (s,))
    assert s.tolist() == [16, 8, 16, 8, 16, 12, 4]


def test_struct_argument_layout_is_checked():
    src = 'struct P { float x, y; int id; };\nextern "C" __global__ void k(P *p) { p[threadIdx.x].id = 1; }'
    k = simcore.RawModule(code=src).get_function("k")
    renamed = np.zeros(4, np.dtype([("a", np.float32), ("b", np.float32), ("c", np.int32)]))
    k(1, 4, (renamed,))                        # member names may differ: the bytes are what counts
    assert (renamed["c"] == 1).all()
    raw = np.zeros(12, np.float32)             # raw bytes, as CuPy users pass them
    k(1, 4, (raw,))
    assert (raw.view(np.int32)[2::3] == 1).all()
    with pytest.raises(simcore.LaunchError, match="layout"):
        k(1, 4, (np.zeros(4, np.dtype([("x", np.float64), ("y", np.float32)])),))
    with pytest.raises(simcore.LaunchError, match="whole number"):
        k(1, 4, (np.zeros(5, np.float32),))


# ------------------------------------------------------------------------------------ vector types
def test_vector_types_members_and_constructors():
    src = r'''
    extern "C" __global__ void k(float *out, int *iout) {
        float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
        float2 h = make_float2(v.x + v.w, v.y * v.z);
        int4 a = make_int4(1, 2, 3, 4);
        uint2 b = make_uint2(5u, 6u);
        double2 d = make_double2(0.25, 0.5);
        a.w += b.y;
        out[threadIdx.x] = h.x + h.y + (float)d.y;
        iout[threadIdx.x] = a.x + a.y + a.z + a.w;
    }'''
    out, iout = np.zeros(32, np.float32), np.zeros(32, np.int32)
    launch(src, "k", 1, 32, (out, iout))
    assert np.allclose(out, 5 + 6 + 0.5) and (iout == 16).all()


def test_vectorised_loads_and_stores_through_reinterpret_cast():
    src = r'''
    extern "C" __global__ void k(const float *in, float *out) {
        float4 v = reinterpret_cast<const float4*>(in)[threadIdx.x];
        v.x *= 2.0f;
        reinterpret_cast<float4*>(out)[threadIdx.x] = v;
    }'''
    x = np.arange(128, dtype=np.float32)
    out = np.zeros(128, np.float32)
    launch(src, "k", 1, 32, (x, out))
    want = x.copy()
    want[0::4] *= 2
    assert np.array_equal(out, want)


def test_misaligned_vector_load_is_a_fault():
    src = r'''
    extern "C" __global__ void k(const float *in, float *out) {
        float4 v = reinterpret_cast<const float4*>(in + 2)[threadIdx.x];
        out[threadIdx.x] = v.x;
    }'''
    with pytest.raises(simcore.KernelFault) as info:
        launch(src, "k", 1, 32, (np.zeros(200, np.float32), np.zeros(32, np.float32)))
    assert info.value.kind == "misaligned" and "16 bytes" in str(info.value)


def test_wide_vectors_have_cudas_sizes_and_alignment():
    """double4/longlong4 align to 16 (CUDA 13 names that double4_16a), double4_32a to 32."""
    src = r'''
    extern "C" __global__ void k(const double *in, double *out, long long *o, int shift) {
        const double4 *v = reinterpret_cast<const double4 *>(in + shift);
        double4 a = v[threadIdx.x];
        longlong4 l = make_longlong4(1, 2, 3, 4);
        out[threadIdx.x] = a.x + a.y + a.z + a.w + l.w;
        if (threadIdx.x == 0) o[0] = sizeof(double4) * 100 + sizeof(ulonglong4_32a);
    }
    extern "C" __global__ void k32(const double *in, double *out, int shift) {
        const double4_32a *v = reinterpret_cast<const double4_32a *>(in + shift);
        double4_32a t = v[threadIdx.x];            // one 32-byte access
        out[threadIdx.x] = t.w;
    }'''
    x = np.arange(4 * 32 + 8, dtype=np.float64)
    out, o = np.zeros(32), np.zeros(1, np.int64)
    launch(src, "k", 1, 32, (x, out, o, np.int32(0)))
    assert np.array_equal(out, x[:128].reshape(-1, 4).sum(axis=1) + 4)
    assert o.tolist() == [32 * 100 + 32]
    launch(src, "k", 1, 32, (x, out, o, np.int32(2)))       # 16 bytes off: aligned for double4
    with pytest.raises(simcore.KernelFault) as info:
        launch(src, "k", 1, 32, (x, out, o, np.int32(1)))   # 8 bytes off
    assert info.value.kind == "misaligned" and "16 bytes" in str(info.value)
    launch(src, "k32", 1, 32, (x, out, np.int32(4)))        # 32 bytes off: aligned for double4_32a
    assert np.array_equal(out, x[4:132].reshape(-1, 4)[:, 3])
    with pytest.raises(simcore.KernelFault) as info:
        launch(src, "k32", 1, 32, (x, out, np.int32(2)))    # 16 bytes off
    assert info.value.kind == "misaligned" and "32 bytes" in str(info.value)


# ------------------------------------------------------------------------------------ &local
def test_address_of_locals_as_out_parameters():
    src = r'''
    __device__ void divmod(int a, int b, int *q, int *r) { *q = a / b; *r = a % b; }
    __device__ void fill(float *a, int n) { for (int i = 0; i < n; i++) a[i] = i * 10; }
    __device__ void bump(float *p) { p[0] += 1; }
    extern "C" __global__ void k(int *qr, float *out) {
        int q, r;
        divmod(threadIdx.x + 50, 7, &q, &r);
        qr[2 * threadIdx.x] = q; qr[2 * threadIdx.x + 1] = r;
        float arr[4];
        fill(arr, 4);
        bump(&arr[threadIdx.x % 4]);
        out[threadIdx.x] = arr[threadIdx.x % 4];
    }'''
    qr, out = np.zeros(64, np.int32), np.zeros(32, np.float32)
    launch(src, "k", 1, 32, (qr, out))
    t = np.arange(32)
    assert qr[0::2].tolist() == ((t + 50) // 7).tolist() and qr[1::2].tolist() == ((t + 50) % 7).tolist()
    assert np.array_equal(out, (t % 4) * 10 + 1)


# ------------------------------------------------------------------------------------ module variables
CONV = r'''
__constant__ float mask[3];
__constant__ float bias = 0.5f;
extern "C" __global__ void k(const float *in, float *out, int n) {
    int i = threadIdx.x;
    float s = bias;
    for (int j = 0; j < 3; j++) if (i + j < n) s += mask[j] * in[i + j];
    out[i] = s;
}'''


def test_constant_memory_written_from_the_host_with_get_global():
    mod = simcore.RawModule(code=CONV)
    k = mod.get_function("k")
    g = mod.get_global("mask")
    assert g.dtype == np.float32 and g.shape == (3,) and g.nbytes == 12
    h = np.array([1, 2, 3], np.float32)
    g.copy_from_host(h.ctypes.data, h.nbytes)           # as CuPy's MemoryPointer.copy_from_host
    x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    k(1, 8, (x, out, np.int32(8)))
    want = [0.5 + sum(h[j] * x[i + j] for j in range(3) if i + j < 8) for i in range(8)]
    assert np.allclose(out, want)
    g[...] = [0, 0, 1]                                     # as assigning to a cupy.ndarray over it
    mod.get_global("bias").set(np.float32(0))
    k(1, 8, (x, out, np.int32(8)))
    assert np.allclose(out, [x[i + 2] if i + 2 < 8 else 0 for i in range(8)])
    assert np.allclose(g.get(), [0, 0, 1]) and float(mod.get_global("bias").get()) == 0.0


def test_each_module_has_its_own_variables():
    a, b = simcore.RawModule(code=CONV), simcore.RawModule(code=CONV)
    a.get_global("bias").set(7)
    assert float(b.get_global("bias").get()) == 0.5


def test_device_counter_keeps_its_value_between_launches():
    src = r'''
    __device__ unsigned int counter;
    extern "C" __global__ void k(unsigned int *seen) {
        seen[blockIdx.x * blockDim.x + threadIdx.x] = atomicAdd(&counter, 1);
    }'''
    mod = simcore.RawModule(code=src)
    k = mod.get_function("k")
    seen = np.zeros(64, np.uint32)
    k(2, 32, (seen,))
    assert sorted(seen.tolist()) == list(range(64))
    k(2, 32, (seen,))
    assert sorted(seen.tolist()) == list(range(64, 128))
    assert int(mod.get_global("counter").get()) == 128
    buf = np.zeros(1, np.uint32)
    mod.get_global("counter").copy_to_host(buf)
    assert buf[0] == 128


def test_get_global_of_an_unknown_name():
    with pytest.raises(simcore.CompileError, match="'nope'.*mask"):
        simcore.RawModule(code=CONV).get_global("nope")


def test_writing_a_constant_scalar_in_a_kernel_is_a_compile_error():
    """nvcc: 'expression must be a modifiable lvalue'."""
    e = compile_error('__constant__ float c;\nextern "C" __global__ void k(float *o) {\n  c = o[0];\n}')
    assert e.line == 3 and "__constant__" in str(e) and "modifiable lvalue" in str(e)


def test_writing_a_constant_array_element_is_a_fault_when_it_runs():
    """nvcc compiles c[i] = v (warning: "Cannot store to pointer that points to constant memory
    space", GPUVerify's misc3): undefined on the GPU, a read-only fault on the simulator."""
    src = ('__constant__ float c[4];\nextern "C" __global__ void k(float *o, int go) {\n'
           '  if (go) c[threadIdx.x] = o[0];\n}')
    k = simcore.RawModule(code=src).get_function("k")
    k(1, 4, (np.zeros(4, np.float32), np.int32(0)))
    with pytest.raises(simcore.KernelFault) as info:
        k(1, 4, (np.zeros(4, np.float32), np.int32(1)))
    assert info.value.kind == "read_only" and info.value.line == 3 and "__constant__ variable c" in str(info.value)


def test_host_variable_is_refused_and_file_scope_const_is_a_constant():
    e = compile_error('int table[4];\nextern "C" __global__ void k(int *o) { o[0] = table[0]; }')
    assert 'identifier "table" is undefined in device code' in str(e) and e.line == 2
    src = 'const int N = 4;\nextern "C" __global__ void k(int *o) { int a[N]; a[0] = N; o[threadIdx.x] = a[0]; }'
    o = np.zeros(4, np.int32)
    launch(src, "k", 1, 4, (o,))
    assert (o == 4).all()


# ------------------------------------------------------------------------------------ attributes, errors
def test_inline_attributes_are_accepted():
    src = r'''
    __device__ __attribute__((always_inline)) float sq(float x) { return x * x; }
    __device__ __forceinline__ float cube(float x) { return x * x * x; }
    __device__ __noinline__ float twice(float x) { return 2 * x; }
    extern "C" __global__ void k(float *o) { o[threadIdx.x] = sq(3) + cube(2) + twice(1); }'''
    o = np.zeros(4, np.float32)
    launch(src, "k", 1, 4, (o,))
    assert (o == 19).all()


@pytest.mark.parametrize("src,words", [
    # (unions run: tests/simcore/frontend/test_cxx_constructs.py)
    ('struct B { int a : 3; };\nextern "C" __global__ void k(int *o) { B b; b.a = 1; o[0] = b.a; }', "bit-field"),
    # (structs by value as kernel parameters run: tests/simcore/test_kernel_arguments.py; arrays of pointers do not)
    ('struct S { int *a[2]; };\nextern "C" __global__ void k(S s, int *o) { o[0] = s.a[0][0]; }', "array of int *"),
    ('struct S { int a; };\nextern "C" __global__ void k(int *o) { S s; o[0] = s.b; }', "no member named 'b'"),
    ('extern "C" __global__ void k(int *o) { int x = 1; o[0] = x.y; }', "not a struct"),
])
def test_struct_misuse_is_named(src, words):
    assert words in str(compile_error(src))


def test_struct_select_and_pointer_steps_within_a_local_array():
    src = r'''
    struct P { float x; int n; };
    __device__ float sum3(const float *p) { return p[0] + p[1] + p[2]; }
    extern "C" __global__ void k(const P *in, float *out) {
        P a = in[threadIdx.x], b = in[31 - threadIdx.x];
        P m = (a.x > b.x) ? a : b;                       // a struct ?: (pure arms)
        P r = (threadIdx.x & 1) ? in[0] : m;             // arms that load: by branch
        float v[5] = {1, 2, 3, 4, 5};
        float *q = &v[1];
        out[threadIdx.x] = m.x + m.n + r.n * 100 + sum3(q + 1);   // 3 + 4 + 5
    }'''
    dt = np.dtype([("x", np.float32), ("n", np.int32)])
    inp = np.zeros(32, dt)
    inp["x"], inp["n"] = np.arange(32), np.arange(32) * 1000
    out = np.zeros(32, np.float32)
    launch(src, "k", 1, 32, (inp, out))
    t = np.arange(32)
    big = np.maximum(t, 31 - t)
    r_n = np.where(t & 1, 0, big * 1000)
    assert np.allclose(out, big + big * 1000 + r_n * 100 + 12)


@pytest.mark.parametrize("body,words", [
    ("struct S { int a; } s = {1}, t = {2}; o[0] = s == t;", "does not apply"),
    ("struct S { int a; } s = {1}; s++;", "does not apply"),
    # (pointers to locals chosen by ?:, reassigned or cast now run: tests/simcore/lower/test_pointer_escape.py)
])
def test_misuse_of_structs_and_local_pointers_is_named(body, words):
    e = compile_error('extern "C" __global__ void k(int *o) {\n  ' + body + '\n}')
    assert words in str(e) and e.line == 2, str(e)


def test_get_global_gpu_backing_moves_the_variables_bytes():
    """The CuPy half (cupy_backend._GpuBacking) against a stand-in for CuPy's MemoryPointer."""
    from types import SimpleNamespace

    from simcore.cupy_backend import _GpuBacking
    from simcore.device_global import DeviceGlobal

    device = np.zeros(12, np.uint8)          # the GPU's bytes of `__constant__ float mask[3]`

    class Ptr:
        def copy_from_host(self, address, nbytes):
            ctypes.memmove(device.ctypes.data, address, nbytes)

    fake = SimpleNamespace(uint8=np.uint8, ndarray=lambda shape, dtype, ptr: device[:shape[0]],
                           asnumpy=lambda a: np.array(a), cuda=SimpleNamespace(
                               runtime=SimpleNamespace(deviceSynchronize=lambda: None)))
    g = DeviceGlobal("mask", np.float32, (3,), _GpuBacking(fake, Ptr(), np.float32, (3,)), constant=True)
    h = np.array([1.5, 2.5, 3.5], np.float32)
    g.copy_from_host(h.ctypes.data, h.nbytes)
    assert np.array_equal(device.view(np.float32), h)
    g[1] = 7
    assert device.view(np.float32).tolist() == [1.5, 7.0, 3.5] and g.get().tolist() == [1.5, 7.0, 3.5]



def test_get_global_on_a_gpu_module_reads_the_size_from_the_declaration(monkeypatch):
    """CuPy's RawModule.get_global returns a MemoryPointer whose memory says 0 bytes (CuPy does
    not know the variable's size), so a module made with CupyModule alone must take the type and
    shape from the declaration. On the H200 the conformance entry constant_from_host failed with
    'copy_from_host: 16 bytes do not fit in coef (0 bytes)' before this."""
    from types import SimpleNamespace

    import simcore.cupy_backend as cb

    ptr = SimpleNamespace(mem=SimpleNamespace(size=0))
    mod = cb.CupyModule.__new__(cb.CupyModule)
    mod.code = '__constant__ float coef[4];\n__constant__ float scale;\n' \
               'extern "C" __global__ void k(float *o) { o[threadIdx.x] = coef[threadIdx.x % 4] * scale; }'
    mod.options, mod.name_expressions = (), ()
    mod._module = SimpleNamespace(get_global=lambda name: ptr)
    monkeypatch.setattr(cb, "_import_cupy", lambda: SimpleNamespace())
    g = mod.get_global("coef")
    assert g.dtype == np.float32 and g.shape == (4,)
    assert mod.get_global("scale").shape == ()
    mod.code = 'extern "C" __global__ void k(float *o) { o[0] = 1; }\n' + 'template <class T> struct X;'
    with pytest.raises(simcore.CompileError, match="size of the variable 'coef' is unknown"):
        mod.get_global("coef")

def test_local_array_of_structs():
    src = r'''
    struct KV { int key; float val; };
    __device__ void swap(KV *a, KV *b) { KV t = *a; *a = *b; *b = t; }
    extern "C" __global__ void k(float *out) {
        KV kv[3] = {{3, 0.5f}, {1, 1.5f}, {2, 2.5f}};
        kv[threadIdx.x % 3].val += 10;
        swap(&kv[0], &kv[1]);
        KV *p = &kv[1];
        p[1].key = 7;
        out[threadIdx.x] = kv[0].key * 100 + kv[0].val + kv[1].key * 1000 + kv[2].key * 10000 + sizeof(kv);
    }'''
    out = np.zeros(32, np.float32)
    launch(src, "k", 1, 32, (out,))
    t = np.arange(32)
    v1 = np.where(t % 3 == 1, 11.5, 1.5)
    assert np.allclose(out, 100 + v1 + 3000 + 70000 + 24)


def test_cxx_brace_initialisation_designated_initializers_and_dim3():
    src = r'''
    struct S { int a, b; };
    __constant__ S table[2] = {{.b = 5}, {1, 2}};
    extern "C" __global__ void k(float *o) {
        float2 v{1.5f, 2.5f};
        S s{};
        S t = {.b = 7};
        dim3 tid = threadIdx;
        dim3 bd = blockDim;
        o[threadIdx.x] = v.x + v.y + s.a + s.b + t.b + t.a + table[0].b + table[1].a + tid.x * 100 + bd.x * 1000;
    }'''
    o = np.zeros(8, np.float32)
    launch(src, "k", 1, 8, (o,))
    assert np.allclose(o, 4 + 7 + 5 + 1 + np.arange(8) * 100 + 8000)


@pytest.mark.parametrize("src,words,line", [
    ("struct S {\n  int a;\n  __device__ S() { a = 0; }\n};\nextern \"C\" __global__ void k(int *o) { }",
     "constructors and destructors", 3),
    ("extern \"C\" __global__ void k(int *o) {\n  auto x;\n  o[1] = x;\n}", "needs an initializer", 2),
    ("struct Node {\n  int v;\n  Node *next;\n};\nextern \"C\" __global__ void k(int *o) { }", "points to itself", 3),
])
def test_cxx_struct_features_are_named(src, words, line):
    e = compile_error(src)
    assert words in str(e) and e.line == line, str(e)


def test_gpu_only_signatures_know_struct_and_vector_pointers():
    """backend="cupy" with a source outside the subset: the launch still needs the parameters."""
    from simcore.launch import check_struct_array
    from simcore.frontend.signature import UNKNOWN_STRUCT, signatures

    sig = signatures('struct C { float re, im; __device__ C() {} };\n'
                     'extern "C" __global__ void k(C *a, const float4 *b, int n) {}')["k"]
    a, b, n = sig.params
    assert a.dtype == UNKNOWN_STRUCT and b.dtype.itemsize == 16 and b.type == "const float4 *"
    check_struct_array(np.zeros(3, np.complex64), a, "a")       # any bytes: the GPU gets the address
    check_struct_array(np.zeros(8, np.float32), b, "b")
    with pytest.raises(simcore.LaunchError):
        check_struct_array(np.zeros(6, np.float32), b, "b")


def test_whole_struct_copies_with_array_members():
    src = r'''
    struct Hist { int bins[4]; float total; };
    __device__ float weigh(Hist h) { h.bins[0] = 0; return h.bins[1] + 2 * h.bins[2] + h.total; }
    extern "C" __global__ void k(const Hist *in, Hist *out, float *w) {
        Hist h = in[threadIdx.x];          // memory -> registers
        Hist g = h;                        // registers -> registers
        g.bins[3] += 100;
        w[threadIdx.x] = weigh(g) + h.bins[0];   // by value: the callee's change stays there
        out[threadIdx.x] = (threadIdx.x & 1) ? g : h;   // registers -> memory
    }'''
    dt = np.dtype([("bins", np.int32, 4), ("total", np.float32)])
    inp = np.zeros(8, dt)
    inp["bins"] = np.arange(32).reshape(8, 4)
    inp["total"] = 0.5
    out, w = np.zeros(8, dt), np.zeros(8, np.float32)
    launch(src, "k", 1, 8, (inp, out, w))
    b = inp["bins"]
    assert np.allclose(w, b[:, 1] + 2 * b[:, 2] + 0.5 + b[:, 0])
    want = b.copy()
    want[1::2, 3] += 100
    assert np.array_equal(out["bins"], want) and np.allclose(out["total"], 0.5)


def test_unused_host_variables_are_accepted_and_a_use_is_refused_at_its_line():
    """nvcc compiles a file with host variables; only device code that names one is an error."""
    src = ('int gB = 200;\nstatic float gA[4] = {1, 2, 3, 4};\nconst float gW[2] = {1, 2};\nextern int gE;\n'
           'extern "C" __global__ void k(int *o) { int gB = 3; o[threadIdx.x] = gB; }')
    o = np.zeros(4, np.int32)
    launch(src, "k", 1, 4, (o,))
    assert (o == 3).all()
    host = src.split('extern "C"')[0]
    for use in ("gB", "gA[1]", "gW[0]", "gE"):
        e = compile_error(host + 'extern "C" __global__ void k(int *o)\n{\n    o[0] = ' + use + ';\n}')
        name = use.split("[")[0]
        assert f'identifier "{name}" is undefined in device code' in str(e) and e.line == 7, (use, e.line, str(e))


def test_a_void_parameter_is_a_compile_error_naming_it():
    e = compile_error('__global__ void k(int *p, void n) { p[0] = 1; }')
    assert "'n'" in str(e) and "void" in str(e) and e.line == 1
    e = compile_error('__device__ int f(int a, void b) { return a; }\n__global__ void k(int *p) {\n p[0] = f(1, 2);\n}')
    assert "'b'" in str(e) and "void" in str(e) and e.line == 1


@pytest.mark.parametrize("use", ["o[0] = __syncwarp();", "if (__nanosleep(3)) o[0] = 1;", "o[0] = (void)0;",
                                 "o[0] = __syncwarp() ? 1 : 2;", "int q = !__syncwarp();",
                                 "o[(int)__syncwarp()] = 1;", "o[0] = f();", "__syncwarp() == 1;",
                                 "float c = sincosf(1.0f, &a, &b);"])
def test_a_void_value_used_as_a_value_is_a_compile_error_at_its_line(use):
    """(found by tools/fuzz_corpus.py: `out[i] = __syncwarp(); ...` was an internal error)"""
    e = compile_error("__device__ void f() {}\n__global__ void k(float *o)\n{\n    float a, b;\n    " + use + "\n}")
    assert e.line == 5 and "void" in str(e)


def test_choosing_between_local_arrays_with_the_conditional_operator_is_a_compile_error():
    """(was an internal error: numpy could not broadcast the two arrays)"""
    e = compile_error("__global__ void k(double *d)\n{\n    double a[2] = {6.0, 8.0}, b[2] = {1.0, 2.0};\n"
                      "    d[threadIdx.x] = (threadIdx.x > 1 ? a : b)[1];\n}")
    assert e.line == 4 and "local arrays" in str(e)


def test_float_constants_beyond_float_range_fold_to_infinity_without_numpy_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a RuntimeWarning from numpy would be an internal error
        o = np.zeros(2, np.float32)
        launch("__global__ void k(float *o) { o[threadIdx.x] = 1e39f + (float)1e300 - (float)(1e300 * 1e10); }",
               "k", 1, 2, (o,))
    assert np.isnan(o).all()


@pytest.mark.parametrize("decl,words", [
    ("__constant__ float mask[0xffffffffu * 2 + 1] = {0.1f};", "64 KB"),
    ("__constant__ float no[16385];", "64 KB"),
    ("__device__ float big[0xffffffffu];", "1 GB"),
])
def test_a_module_variable_too_large_is_a_compile_error_not_a_hang(decl, words):
    """(found by tools/fuzz_corpus.py: a mutated __constant__ size of 2^32 floats hung the compiler)"""
    e = compile_error(decl + "\n__global__ void k(float *o) { o[0] = 1; }")
    assert e.line == 1 and words in str(e)
    simcore.RawModule(code="__constant__ float ok[16384] = {1.0f};\n__global__ void k(float *o) { o[0] = ok[0]; }")
