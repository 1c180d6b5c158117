// Barrier inside if (t < active) with nothing after the if: the threads that skip the
// block simply exit, so the barrier completes with the active threads. Legal, fragile.
extern "C" __global__ void guard_nothing_after(int* out, const int* in, int active)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    if (t < active) {
        tile[t] = in[t];
        __syncthreads();
        out[t] = tile[active - 1 - t];
    }
}
