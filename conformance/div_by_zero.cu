// Integer division by zero for the element equal to 3 (undefined; the GPU does not trap
// and returns garbage).
extern "C" __global__ void div_by_zero(int* out, const int* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 100 / (in[i] - 3);
}
