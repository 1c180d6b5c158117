// size_t arithmetic and indexing.
extern "C" __global__ void size_t_index(const int* in, long long* out, int n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    size_t z = i * 8 + 3;
    out[i] = (long long)z + in[i];
}
