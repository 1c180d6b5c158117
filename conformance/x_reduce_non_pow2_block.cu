// BUG: a tree reduction written for power-of-two blocks, launched with 200 threads: the
// first step adds s[t + 128] for t < 128, and slots 200..255 were never written.
extern "C" __global__ void x_reduce_non_pow2_block(const int* in, int* out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int half = 128; half > 0; half >>= 1) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
