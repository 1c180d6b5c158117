// extern __shared__ sized by the launch's shared_mem; tree reduction with a barrier in a
// loop whose trip count is the same for every thread.
extern "C" __global__ void extern_shared_reduce(const int* in, int* out)
{
    extern __shared__ int buf[];
    unsigned int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}
