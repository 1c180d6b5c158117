// Off-by-one stencil: the last thread reads in[n].
extern "C" __global__ void oob_global_read(int* out, const int* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + in[i + 1];
}
