// The consumed flag again, but warp 0 writes a value for warp 1 before raising the flag without
// __threadfence_block(): warp 1's read of it is not ordered after the write.
extern "C" __global__ void hunt3_consume_flag_cas_data(const int* in, int* out)
{
    __shared__ int flag, box;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (threadIdx.x == 0) {
        box = v * 5;
        *(volatile int*)&flag = 1;
    } else if (threadIdx.x == 32) {
        while (atomicCAS(&flag, 1, 0) != 1) { }
        __threadfence_block();
        v += box;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + flag;
}
