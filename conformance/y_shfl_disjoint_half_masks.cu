// Divergent code with disjoint masks: the lower half-warp shuffles with 0x0000ffff, the
// upper half with 0xffff0000 (width 16). Each mask names exactly its callers.
extern "C" __global__ void y_shfl_disjoint_half_masks(const int* in, int* out)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    if (lane < 16)
        v = v * 10 + __shfl_sync(0x0000ffffu, v, 3, 16);
    else
        v = v * 10 - __shfl_sync(0xffff0000u, v, 5, 16);
    out[t] = v;
}
