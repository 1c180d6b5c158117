// The full mask inside a branch taken by lanes 0-15 only: the mask names lanes 16-31, which
// are alive but never execute this __reduce_add_sync. Undefined (a hang or garbage).
extern "C" __global__ void w_reduce_mask_divergent(const int* in, int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int r = 0;
    if (lane < 16)
        r = __reduce_add_sync(0xffffffffu, in[g]);
    out[g] = r;
}
