// A long legal loop: 1000 rounds of a two-barrier relaxation over 64 threads.
extern "C" __global__ void hunt_long_relaxation(float* x, int rounds)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    for (int r = 0; r < rounds; ++r) {
        float nb = s[(t + 1) & 63];
        __syncthreads();
        s[t] = 0.75f * s[t] + 0.25f * nb;
        __syncthreads();
    }
    x[t] = s[t];
}
