// Blocks of 1000 threads (31 full warps and one of 8 lanes): a tree reduction for a block
// size that is not a power of two (the first step folds the upper part onto the lower).
extern "C" __global__ void x_block1000(const int* in, int* out, int* maxes)
{
    __shared__ int s[1024];
    __shared__ int m[1024];
    int t = threadIdx.x;
    int n = blockDim.x;
    s[t] = in[blockIdx.x * n + t];
    m[t] = s[t];
    __syncthreads();
    int p = 1;
    while (p < n) p <<= 1;
    for (int half = p / 2; half > 0; half >>= 1) {
        if (t < half && t + half < n) {
            s[t] += s[t + half];
            m[t] = max(m[t], m[t + half]);
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
        maxes[blockIdx.x] = m[0];
    }
}
