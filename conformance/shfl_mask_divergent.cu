// A full mask in divergent code: lanes 0-15 call __shfl_sync(0xffffffff, ...) while lanes
// 16-31 (alive, waiting after the if) do not: the mask names lanes that do not take part.
extern "C" __global__ void shfl_mask_divergent(int* out, const int* in)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    if (lane < 16)
        v = __shfl_sync(0xffffffff, v, 0);
    out[t] = v;
}
