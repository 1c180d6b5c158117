// Barrier inside if (t < active) with active = 100 and code after the if. Warp 3 is split:
// lanes 96-99 wait at the barrier; lanes 100-127 wait for them at the end of the if
// (their reconvergence point) and never exit. The barrier can never complete: deadlock.
extern "C" __global__ void guard_code_after(int* out, int* flags, const int* in, int active)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    if (t < active) {
        tile[t] = in[t];
        __syncthreads();
        out[t] = tile[active - 1 - t];
    }
    flags[t] = t * 2;
}
