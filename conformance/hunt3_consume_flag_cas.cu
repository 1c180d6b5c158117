// Warp 0 raises a shared flag with a volatile store (no fence: it publishes nothing else); warp 1's
// lane 0 consumes it with atomicCAS(flag, 1, 0) in a wait loop, so the flag ends at 0.
extern "C" __global__ void hunt3_consume_flag_cas(const int* in, int* out)
{
    __shared__ int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (threadIdx.x == 0) {
        *(volatile int*)&flag = 1;
    } else if (threadIdx.x == 32) {
        while (atomicCAS(&flag, 1, 0) != 1) { }
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + flag;
}
