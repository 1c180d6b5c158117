// Lanes past n exit; the others shuffle with the full mask (exited lanes are ignored).
// The last live lane reads from an exited lane, but that value is never used.
extern "C" __global__ void y_shfl_after_exit(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int right = __shfl_down_sync(0xffffffffu, v, 1);
    int pair = __shfl_xor_sync(0xffffffffu, v, 1);
    int r = v;
    if (i + 1 < n && (threadIdx.x & 31) != 31) r = v + right;
    if ((i ^ 1) < n) r = r * 2 + pair;
    out[i] = r;
}
