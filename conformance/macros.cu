// #define constants, function-like macros (with arguments that need their parentheses),
// and SCALE given on the command line (options=("-DSCALE=3",)).
#define WIDTH 16
#define IDX(r, c) ((r) * WIDTH + (c))
#define SQUARE(a) ((a) * (a))
#define MAX3(a, b, c) max(max((a), (b)), (c))

extern "C" __global__ void macros(const int* in, int* out)
{
    int r = threadIdx.y;
    int c = threadIdx.x;
    int v = in[IDX(r, c)];
    out[IDX(r, c)] = SQUARE(v + 1) * SCALE + MAX3(r, c, v);
}
