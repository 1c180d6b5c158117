// Warp 1 reads from global memory what warp 0 of the same block wrote, with no barrier
// between: a read-after-write race in global memory.
extern "C" __global__ void y_global_raw_two_warps(const int* in, int* tmp, int* out)
{
    int t = threadIdx.x;
    int base = blockIdx.x * 64;
    if (t < 32) tmp[base + t] = in[base + t] * 2;
    if (t >= 32) out[base + t] = tmp[base + t - 32] + 1;
    else out[base + t] = 0;
}
