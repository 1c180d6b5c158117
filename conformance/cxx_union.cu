// Unions: C's layout (every member at offset 0) and type punning through their bytes.
union Bits { float f; unsigned u; unsigned char b[4]; };
union Wide { double d; int i[2]; };

__device__ unsigned top_byte(Bits x) { return x.b[3]; }

extern "C" __global__ void cxx_union(const float* in, unsigned* bits, unsigned* top, int* high, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Bits x;
    x.f = in[i];
    bits[i] = x.u;                  // the float's bits
    top[i] = top_byte(x);           // passed by value: the same bytes
    Wide w;
    w.d = (double)in[i];
    high[i] = w.i[1];               // the high word of the double (little-endian)
}
