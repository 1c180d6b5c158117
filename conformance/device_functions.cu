// __device__ and __device__ __forceinline__ helpers: early returns inside a helper,
// a void helper writing through a pointer, float helper (FMA-contractible: tolerance).
// (Calls nested in another call's arguments are in device_call_nested.cu.)
__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}

__device__ float poly(float x)
{
    return 1.0f + x * (0.5f + x * 0.25f);
}

__device__ void store_pair(int* dst, int a, int b)
{
    dst[0] = a;
    dst[1] = b;
}

extern "C" __global__ void device_functions(const int* in, int* out, float* outf, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int v = in[t];
    int lo = clampi(v, -10, 10);
    int hi = clampi(v * 2, 0, 50);
    store_pair(out + 2 * t, lo, hi);
    outf[t] = poly((float)v * 0.125f);
}
