// Polynomial coefficients in __constant__ memory, written by the host before the launch
// (RawModule.get_global(name), CUDA's cudaMemcpyToSymbol): Horner's rule per element.
__constant__ float coef[4];
__constant__ float scale;

extern "C" __global__ void constant_from_host(const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    float r = coef[3];
    for (int k = 2; k >= 0; k--) r = r * v + coef[k];
    y[i] = r * scale;
}
