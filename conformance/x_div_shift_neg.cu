// Integer division and modulo of negative values (truncation toward zero), right shifts of
// negative ints (arithmetic on NVCC) and of unsigned values (logical), division by powers
// of two versus shifts.
extern "C" __global__ void x_div_shift_neg(const int* in, int* out, unsigned int* uout, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    out[t * 8 + 0] = x / 4;
    out[t * 8 + 1] = x >> 2;
    out[t * 8 + 2] = x % 4;
    out[t * 8 + 3] = x & 3;
    out[t * 8 + 4] = x / -3;
    out[t * 8 + 5] = x % -3;
    out[t * 8 + 6] = -x / 7 * 7 + -x % 7;
    out[t * 8 + 7] = (x >> 31) | 1;
    unsigned int u = (unsigned int)x;
    uout[t * 3 + 0] = u >> 4;
    uout[t * 3 + 1] = u / 10u;
    uout[t * 3 + 2] = (u << 3) + (u % 10u);
}
