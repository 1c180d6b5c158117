// if (threadIdx.x < 48) with blocks of 64: warp 0 all in, warp 1 split in half. The full
// mask names lanes 16-31 of warp 1, alive (they store after the if) and not calling.
extern "C" __global__ void y_shfl_fullmask_half_warp_branch(const int* in, int* out)
{
    int t = threadIdx.x;
    int v = in[t];
    if (t < 48) {
        for (int off = 8; off > 0; off >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    out[t] = v;
}
