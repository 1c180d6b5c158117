// __syncthreads_count / _and / _or: a barrier plus a block-wide reduction of a predicate.
extern "C" __global__ void syncthreads_count(const int* in, int* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    int cnt = __syncthreads_count(v > 50);
    int all = __syncthreads_and(v >= 0);
    int any = __syncthreads_or(v > 98);
    out[g * 3 + 0] = cnt;
    out[g * 3 + 1] = all != 0;
    out[g * 3 + 2] = any != 0;
}
