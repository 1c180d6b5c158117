// Lanes past n exit; the last live lane's __shfl_down_sync(full, v, 1) reads from an
// exited lane, and that value is stored.
extern "C" __global__ void y_shfl_from_exited_used(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int right = __shfl_down_sync(0xffffffffu, v, 1);
    out[i] = v + right;
}
