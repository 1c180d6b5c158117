// Thread 0 computes one value in shared memory; after the barrier every thread reads it
// (and a few other shared elements): many readers of one element are not a race.
extern "C" __global__ void y_broadcast_after_barrier(const int* in, int* out)
{
    __shared__ int scale;
    __shared__ int vals[4];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) scale = in[blockIdx.x * blockDim.x] % 7 + 10;
    if (t < 4) vals[t] = in[blockIdx.x * blockDim.x + 100 + t];
    __syncthreads();
    out[i] = in[i] * scale + vals[t % 4] + vals[0];
}
