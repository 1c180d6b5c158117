// Float sum with atomicAdd on a float: the order of the additions varies from run to run,
// so the result is only reproducible to rounding (compared with a tolerance).
extern "C" __global__ void x_float_atomic_sum(const float* x, float* sum, float* blocksums, int n)
{
    __shared__ float bs;
    if (threadIdx.x == 0) bs = 0.0f;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&bs, x[i]);
        atomicAdd(sum, x[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) blocksums[blockIdx.x] = bs;
}
