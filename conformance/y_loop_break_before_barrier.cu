// Each thread leaves the loop when its running value goes negative -- BEFORE the barrier
// of that iteration; the others then wait at a barrier the leavers never reach.
extern "C" __global__ void y_loop_break_before_barrier(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    int v = in[t];
    for (int k = 0; k < 8; ++k) {
        v -= 30;
        if (v < 0) break;
        tile[t] = v;
        __syncthreads();
        v += tile[(t + 1) % 64] & 7;
    }
    out[t] = v;
}
