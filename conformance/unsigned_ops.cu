// Unsigned arithmetic wraps modulo 2^32; shifts are logical; -1 converts to 0xffffffff
// in a comparison with an unsigned operand (usual arithmetic conversions).
extern "C" __global__ void unsigned_ops(const unsigned int* a, const unsigned int* b,
                                        unsigned int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned int x = a[t];
    unsigned int y = b[t] | 1u;
    unsigned int* o = out + t * 8;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = x % y;
    o[5] = x >> (y & 31u);
    o[6] = (x < y) ? 1u : 0u;
    int neg = -1;
    o[7] = (neg < x) ? 1u : 0u;
}
