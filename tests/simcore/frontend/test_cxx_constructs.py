"""C++ constructs of course-level code: `auto` for locals, unions, member functions
of structs. Each runs with C++'s meaning or is refused by name at its line."""
import numpy as np
import pytest

import simcore


def kernel(src, name="k"):
    return simcore.RawModule(code=src).get_function(name)


def compile_error(src):
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src)
    return info.value


# ------------------------------------------------------------------------------------ auto
def test_auto_takes_the_type_of_its_initializer():
    k = kernel(r'''
    struct P { float x; int n; };
    extern "C" __global__ void k(const float *a, float *b, const P *ps) {
        auto i = threadIdx.x;              // unsigned int: i - 33 wraps
        auto x = a[i];                     // float
        const auto *p = a + i;             // const float *
        auto s = ps[i];                    // a struct
        auto m = make_float2(1.0f, 2.0f);  // float2
        for (auto j = 0; j < 2; j++) x += p[0];
        auto big = i - 33;
        auto h = x / 2;                    // float: 1.5f, not 1
        b[i] = h + s.x * s.n + m.y + (big > 100 ? 1000.0f : 0.0f);
    }''')
    a, b = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    ps = np.zeros(32, np.dtype([("x", np.float32), ("n", np.int32)]))
    ps["x"], ps["n"] = 0.5, np.arange(32)
    k((1,), (32,), (a, b, ps))
    t = np.arange(32, dtype=np.float32)
    assert np.array_equal(b, 3 * t / 2 + 0.5 * t + 2 + 1000)


def test_auto_of_an_integer_expression_keeps_cs_integer_type():
    k = kernel(r'''
    extern "C" __global__ void k(long long *o) {
        auto a = 7 / 2;                    // int
        auto b = 3000000000u;              // unsigned int
        auto c = 1LL << 40;                // long long
        o[0] = a; o[1] = b + 1000000000u;  // wraps in 32 bits
        o[2] = c; o[3] = sizeof(a) * 100 + sizeof(c);
    }''')
    o = np.zeros(4, np.int64)
    k((1,), (1,), (o,))
    assert o.tolist() == [3, (3000000000 + 1000000000) % 2 ** 32, 1 << 40, 408]


@pytest.mark.parametrize("src,line", [
    ('extern "C" __global__ void k(int *o) {\n  auto x;\n  o[0] = x;\n}', 2),
    ('__device__ auto f(int v) { return v; }\nextern "C" __global__ void k(int *o) { o[0] = f(1); }', 1),
    ('extern "C" __global__ void k(int *o) {\n  auto *p = o[0];\n}', 2),
])
def test_auto_without_something_to_deduce_from_is_named(src, line):
    e = compile_error(src)
    assert e.construct == "auto" and e.line == line, str(e)


# ------------------------------------------------------------------------------------ unions
UNION = r'''
union Bits { float f; unsigned u; unsigned char b[4]; };
typedef union { double d; int i[2]; } DI;
__device__ unsigned top_byte(Bits x) { return x.b[3]; }
extern "C" __global__ void k(const float *a, unsigned *o, int *hi, const Bits *in, Bits *out, unsigned *top) {
    int t = threadIdx.x;
    Bits x;
    x.f = a[t];
    o[t] = x.u;                        // type punning through the union's bytes
    top[t] = top_byte(x);              // passed by value: the same bytes
    DI v;
    v.d = (double)a[t];
    hi[t] = v.i[1];
    Bits y = in[t];                    // a union in global memory, copied
    y.b[3] ^= 0x80;                    // the sign bit of the float
    out[t] = y;
}'''


def test_a_union_reads_its_bytes_as_each_member():
    k = kernel(UNION)
    a = np.linspace(-2, 3, 32).astype(np.float32)
    o, hi, top = np.zeros(32, np.uint32), np.zeros(32, np.int32), np.zeros(32, np.uint32)
    out = np.zeros(32, np.uint32)
    k((1,), (32,), (a, o, hi, a.view(np.uint32).copy(), out, top))
    assert np.array_equal(o, a.view(np.uint32))
    assert np.array_equal(top, a.view(np.uint32) >> 24)
    assert np.array_equal(hi, a.astype(np.float64).view(np.int32)[1::2])
    assert np.array_equal(out.view(np.float32), -a)
    assert k.params[3].dtype.itemsize == 4 and k.params[3].dtype.fields["u"][1] == 0


def test_union_layout_is_cs():
    k = kernel(r'''
    union A { char c; double d; int i[3]; };
    struct S { char tag; union { int n; float f; } v; };
    extern "C" __global__ void k(int *o) { o[0] = sizeof(union A); o[1] = sizeof(S); }''')
    o = np.zeros(2, np.int32)
    k((1,), (1,), (o,))
    assert o.tolist() == [16, 8]


def test_reading_a_member_never_written_is_undefined():
    k = kernel('union U { float f; double d; };\nextern "C" __global__ void k(double *o) {\n'
               '  U x;\n  x.f = 1.0f;\n  o[threadIdx.x] = x.d;\n}')
    with pytest.raises(simcore.UndefinedValue) as info:
        k((1,), (32,), (np.zeros(32),))
    assert info.value.line == 5


# ------------------------------------------------------------------------------------ member functions
METHODS = r'''
struct Acc {
    float sum;
    int n;
    __device__ void add(float v) { sum += v; n++; }
    __device__ float mean() const { return n ? sum / n : 0.0f; }
    __device__ void add_twice(float v) { add(v); this->add(v); }
};
class Counter {
    int c;
public:
    __device__ void reset() { c = 0; }
    __device__ int bump(int by) { c += by; return c; }
};
extern "C" __global__ void k(const float *a, float *o, Acc *accs, int *cnt) {
    int t = threadIdx.x;
    Acc acc = {0.0f, 0};
    acc.add(a[t]);
    acc.add_twice(1.0f);
    o[t] = acc.mean();
    accs[t].add(2.0f);                 // on a struct in global memory
    Acc *p = &accs[t];
    p->add(a[t]);
    Counter c;
    c.reset();
    c.bump(t);
    cnt[t] = c.bump(1);
}'''


def test_member_functions_are_inlined_with_this():
    k = kernel(METHODS)
    a, o = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    accs = np.zeros(32, np.dtype([("sum", np.float32), ("n", np.int32)]))
    cnt = np.zeros(32, np.int32)
    k((1,), (32,), (a, o, accs, cnt))
    t = np.arange(32)
    assert np.allclose(o, (t + 2) / 3)
    assert np.array_equal(accs["sum"], t + 2) and np.array_equal(accs["n"], np.full(32, 2))
    assert np.array_equal(cnt, t + 1)


def test_a_race_inside_a_member_function_is_found_at_its_line():
    src = ('struct Box {\n  int v;\n  __device__ void put(int x) { v = x; }\n};\n'
           'extern "C" __global__ void k(Box *b) {\n  b[0].put(threadIdx.x);\n}')
    with pytest.raises(simcore.DataRace) as info:
        kernel(src)((1,), (64,), (np.zeros(1, np.int32),))
    assert info.value.line == 3


@pytest.mark.parametrize("src,words,line", [
    ("struct S {\n  int a;\n  __device__ S() { a = 0; }\n};", "constructors and destructors", 3),
    ("struct S {\n  int a;\n  __device__ ~S() { }\n};", "constructors and destructors", 3),
    ("struct S {\n  int a;\n  static __device__ int one() { return 1; }\n};", "static member functions", 3),
    ("struct S {\n  int a;\n  __device__ int f() { return 1; }\n  __device__ int f(int x) { return x; }\n};",
     "overloaded member functions", 4),
    ("struct S { int a; };\nextern \"C\" __global__ void k(int *o) {\n  S s = {1};\n  o[0] = s.g();\n}",
     "has no member function 'g'", 4),
])
def test_member_functions_outside_the_subset_are_named(src, words, line):
    if "__global__" not in src:
        src += '\nextern "C" __global__ void k(int *o) { }'
    e = compile_error(src)
    assert words in str(e) and e.line == line, str(e)


# ------------------------------------------------------------------------------------ inheritance
def test_a_derived_struct_has_its_bases_members_and_member_functions_first():
    k = kernel(r'''
    struct Shape { float w; __device__ float width() const { return w; } };
    struct Box : public Shape { float h; __device__ float area() const { return width() * h; } };
    extern "C" __global__ void k(const Box *in, float *o, Box b) {
        int t = threadIdx.x;
        Box x = in[t];
        x.w += 1.0f;
        o[t] = x.area() + b.width() * b.h + sizeof(Box);
    }''')
    dt = np.dtype([("w", np.float32), ("h", np.float32)])
    boxes = np.zeros(32, dt)
    boxes["w"], boxes["h"] = np.arange(32), 2
    b = np.zeros((), dt)
    b["w"], b["h"] = 3, 4
    o = np.zeros(32, np.float32)
    k((1,), (32,), (boxes, o, b[()]))
    assert np.array_equal(o, (np.arange(32) + 1) * 2 + 12 + 8)


def test_multiple_inheritance_is_named():
    e = compile_error('struct A { int a; };\nstruct B { int b; };\nstruct C : A, B { int c; };\n'
                      'extern "C" __global__ void k(int *o) { }')
    assert e.construct == "inheritance" and e.line == 3


def test_a_member_named_like_a_type_prefix_is_not_a_brace_initializer():
    """`} s;` made `s` a type name, and `struct {` then read as `s truct {`: a syntax error."""
    k = kernel(r'''
    struct S { struct { int *p; int n; } s; };
    extern "C" __global__ void k(S a) { a.s.p[threadIdx.x] = a.s.n; }''')
    out = np.zeros(32, np.int32)
    k((1,), (32,), ({"s": {"p": out, "n": 9}},))
    assert np.array_equal(out, np.full(32, 9))


def test_texture_references_are_named():
    """GPUVerify's argument_promotion: a texture reference (removed in CUDA 12) is refused by name."""
    e = compile_error('texture<unsigned, 1, cudaReadModeElementType> tex;\n'
                      '__global__ void foo() { tex1Dfetch(tex, 4); }')
    assert e.construct == "texture" and e.line == 1


# ------------------------------------------------------------------------------------ function pointers
FUNCTION_POINTERS = r'''
__device__ float twice(float *v, unsigned int i) { return v[i] * 2.0f; }
__device__ float half(float *v, unsigned int i) { return v[i] * 0.5f; }
__device__ void bump(int *c) { *c += 1; }
typedef float (*op_t)(float *, unsigned int);
extern "C" __global__ void k(float *v, float *o, int *c, int pick) {
    unsigned t = threadIdx.x;
    op_t f = (t & 1) ? twice : &half;          // chosen per thread
    o[t] = f(v, t) + (*f)(v, t);
    void (*g)(int *) = bump;
    int n = 0;
    g(&n);
    c[t] = n;
    if (pick) {
        op_t none = 0;
        o[t] = none(v, t);
    }
}'''


def test_calls_through_function_pointers_reach_the_function_each_thread_holds():
    k = kernel(FUNCTION_POINTERS)
    v, o, c = np.arange(32, dtype=np.float32), np.zeros(32, np.float32), np.zeros(32, np.int32)
    k((1,), (32,), (v, o, c, np.int32(0)))
    t = np.arange(32)
    assert np.array_equal(o, np.where(t & 1, 4 * t, t))
    assert np.array_equal(c, np.ones(32))


def test_a_call_through_a_null_function_pointer_is_a_fault_at_its_line():
    k = kernel(FUNCTION_POINTERS)
    with pytest.raises(simcore.OutOfBounds) as info:
        k((1,), (32,), (np.zeros(32, np.float32), np.zeros(32, np.float32), np.zeros(32, np.int32), np.int32(1)))
    assert info.value.line == 16 and "null function pointer" in str(info.value)
