// continue before the barrier under a per-thread condition: the lanes that continue wait
// at the loop's latch for warp-mates waiting at the barrier.
extern "C" __global__ void y_continue_per_thread_barrier(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    int v = in[t];
    for (int k = 0; k < 4; ++k) {
        if ((v & 3) == k) continue;
        tile[t] = v;
        __syncthreads();
        v += tile[(t + 1) % 64] & 1;
    }
    out[t] = v;
}
