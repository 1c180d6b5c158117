// blockDim.x = 48: warp 1 has only lanes 0-15. __activemask() at a convergent point gives
// 0xffffffff in warp 0 and 0x0000ffff in warp 1; reductions over groups of 16 with xor
// offsets 8..1 stay inside the existing lanes. Barriers count the 48 threads.
extern "C" __global__ void y_block48_activemask(const int* in, int* out, unsigned* masks)
{
    __shared__ int s[48];
    int t = threadIdx.x;
    int i = blockIdx.x * 48 + t;
    unsigned m = __activemask();
    int v = in[i];
    for (int off = 8; off > 0; off >>= 1)
        v += __shfl_xor_sync(m, v, off);
    s[t] = v;
    __syncthreads();
    out[i] = s[(t + 16) % 48] - s[t];
    if ((t & 31) == 0) masks[blockIdx.x * 2 + t / 32] = m;
}
