// Barrier inside if (t < active) with active = 128 (a warp boundary) and more code after
// the if: whole warps skip the block, run the code after it and exit; the barrier
// completes with the remaining threads. Legal under CUDA's rule (exited threads do not
// count), but only because no warp is split and no barrier follows.
extern "C" __global__ void guard_aligned_code_after(int* out, int* flags, const int* in, int active)
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
