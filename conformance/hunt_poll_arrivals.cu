// Every block writes its partial sum, then counts itself in; block 0 waits until all have.
extern "C" __global__ void hunt_poll_arrivals(const int* in, int* partial, int* arrived, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int w = 32; w > 0; w >>= 1) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        atomicAdd(arrived, 1);
        if (blockIdx.x == 0) {
            while (atomicAdd(arrived, 0) < (int)gridDim.x) { }
            __threadfence();
            int total = 0;
            for (int b = 0; b < gridDim.x; ++b) total += partial[b];
            *out = total;
        }
    }
}
