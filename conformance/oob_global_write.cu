// Missing bounds check: the grid has 256 threads, the array 200 elements.
extern "C" __global__ void oob_global_write(int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;
}
