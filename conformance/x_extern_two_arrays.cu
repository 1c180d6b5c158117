// One extern __shared__ buffer carved into two arrays by pointer arithmetic: n ints, then
// n floats. The block computes a per-element rank-weighted value.
extern "C" __global__ void x_extern_two_arrays(const int* keys, const float* vals, float* out)
{
    extern __shared__ int smem[];
    int n = blockDim.x;
    int* skeys = smem;
    float* svals = (float*)&skeys[n];
    int t = threadIdx.x;
    int g = blockIdx.x * n + t;
    skeys[t] = keys[g];
    svals[t] = vals[g];
    __syncthreads();
    int rank = 0;
    for (int j = 0; j < n; j++)
        if (skeys[j] < skeys[t] || (skeys[j] == skeys[t] && j < t))
            rank++;
    out[blockIdx.x * n + rank] = svals[t] * 2.0f;
}
