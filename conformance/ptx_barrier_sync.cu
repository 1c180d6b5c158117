// The reverse-a-tile kernel with the barrier written as PTX barrier.sync 0 (what
// __syncthreads() lowers to, minus .aligned).
extern "C" __global__ void ptx_barrier_sync(float* out, const float* in)
{
    __shared__ float tile[128];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 128 + t];
    asm volatile("barrier.sync 0;");
    out[blockIdx.x * 128 + t] = tile[127 - t];
}
