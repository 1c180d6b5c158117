// BUG: tree reduction with the barrier inside `if (tid < s)`: once s < 32 a warp is split
// between threads at the barrier and threads that skipped the if.
extern "C" __global__ void x_reduce_barrier_in_if(const int* in, int* out)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    for (unsigned int s = 128; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
