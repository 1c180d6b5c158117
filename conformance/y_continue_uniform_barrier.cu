// continue before the barrier under a condition uniform over the block (the loop counter):
// every thread skips the same iterations.
extern "C" __global__ void y_continue_uniform_barrier(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    int v = in[t];
    for (int k = 0; k < 6; ++k) {
        if (k % 3 == 1) continue;
        tile[t] = v;
        __syncthreads();
        v += tile[(t + k + 1) % 64];
        __syncthreads();
    }
    out[t] = v;
}
