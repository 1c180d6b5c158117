// 64-bit integers: products beyond 32 bits, truncating division, unsigned 64-bit wrap.
extern "C" __global__ void long_long_ops(const long long* a, long long* out,
                                         unsigned long long* outu, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    long long x = a[t];
    out[t * 4 + 0] = x * 3LL + (1LL << 40);
    out[t * 4 + 1] = x / 7;
    out[t * 4 + 2] = x % 7;
    out[t * 4 + 3] = x >> 3;
    unsigned long long ux = (unsigned long long)x;
    unsigned long long idx = (unsigned long long)t;
    outu[t * 2 + 0] = ux * 0x9E3779B97F4A7C15ull;
    outu[t * 2 + 1] = (unsigned long long)(idx << 33) ^ ux;
}
