// Thread 0 reads how many passes to make into shared memory; every thread then loops that
// many times with a barrier inside (uniform: all read the same value after the barrier).
extern "C" __global__ void hunt_loop_bound_from_shared(const int* passes, const float* x, float* out)
{
    __shared__ int n;
    __shared__ float buf[128];
    int t = threadIdx.x;
    if (t == 0) n = passes[blockIdx.x];
    buf[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (int p = 0; p < n; ++p) {
        float left = buf[(t + 127) & 127];
        __syncthreads();
        buf[t] = 0.5f * (buf[t] + left);
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = buf[t];
}
