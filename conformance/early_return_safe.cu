// Early return before a barrier, where the remaining threads only read slots written by
// threads that stayed (n is even, pairs swap). Legal: exited threads are not waited for.
// Fragile: one more read across the boundary and it is broken.
extern "C" __global__ void early_return_safe(int* out, const int* in, int n)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    if (i >= n) return;
    tile[t] = in[i];
    __syncthreads();
    out[i] = tile[t ^ 1];
}
