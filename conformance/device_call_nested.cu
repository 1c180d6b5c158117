// Calls to __device__ functions nested in the arguments of another call.
__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}

__device__ void store_pair(int* dst, int a, int b)
{
    dst[0] = a;
    dst[1] = b;
}

extern "C" __global__ void device_call_nested(const int* in, int* out)
{
    int t = threadIdx.x;
    int v = in[t];
    store_pair(out + 2 * t, clampi(v, -10, 10), clampi(clampi(v * 2, -5, 40), 0, 50));
}
