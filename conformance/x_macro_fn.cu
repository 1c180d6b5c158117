// Function-like macros, multi-line macros, #if / #ifdef, a macro default overridable with
// -D, and a macro argument with side-effect-free expressions.
#define IDX(r, c, w) ((r) * (w) + (c))
#define SQR(x) ((x) * (x))
#define MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))
#ifndef OFFSET
#define OFFSET 5
#endif
#define STORE2(p, i, v0, v1) \
    do {                      \
        (p)[2 * (i)] = (v0);  \
        (p)[2 * (i) + 1] = (v1); \
    } while (0)

extern "C" __global__ void x_macro_fn(const int* m, int* out, int w, int h)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= h || c >= w) return;
    int v = m[IDX(r, c, w)];
#if OFFSET > 3
    int a = SQR(v - OFFSET);
#else
    int a = SQR(v);
#endif
#ifdef NEVER_DEFINED
    a = 0;
#endif
    STORE2(out, IDX(r, c, w), a, MAX3(v, r, c + OFFSET));
}
