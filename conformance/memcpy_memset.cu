// memcpy / memset in device code (NVRTC has no __builtin_memcpy/__builtin_memset): local arrays, shared
// and global memory, constant and run-time byte counts, bytes of floats.
extern "C" __global__ void memcpy_memset(float* out, const float* in, int* iout, unsigned char* bytes, int n)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    float loc[4];
    memcpy(loc, in + 4 * t, sizeof(loc));
    tile[t] = loc[0] + loc[3];
    __syncthreads();
    if (t == 0) memcpy(out, tile, 64 * sizeof(float));
    int li[3];
    memset(li, 0, sizeof(li));
    li[1] += t;
    memset(iout + 2 * t, -1, 2 * sizeof(int));
    if (t == 1) memset(bytes, 7, n);
    if (t == 2) memcpy(bytes + 100, in, 10);
    float f[2];
    memset(f, 0, sizeof(f));
    out[64 + t] = li[1] + f[0] + f[1];
}
