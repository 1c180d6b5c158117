// Shuffles with the full mask inside a branch that is uniform per warp: with blocks of 128,
// threadIdx.x < 64 holds for all of warps 0 and 1 and for none of warps 2 and 3.
extern "C" __global__ void y_shfl_warp_uniform_branch(const int* in, int* out)
{
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int v = in[i];
    if (t < 64) {
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, off);
    } else {
        v = __shfl_sync(0xffffffffu, v, 31 - (t & 31));
    }
    out[i] = v;
}
