// SAXPY with a grid-stride loop: fewer threads than elements, n not a multiple of anything.
extern "C" __global__ void x_grid_stride_saxpy(int n, float a, const float* __restrict__ x,
                                               float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
