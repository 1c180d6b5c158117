// Atomics and a plain read of the same location in one barrier interval: thread 0 reads
// the total while the others may still be adding.
extern "C" __global__ void atomic_vs_plain(int* out, const int* in)
{
    __shared__ int total[1];   // an array: shared scalars have their own kernel
    int t = threadIdx.x;
    if (t == 0) total[0] = 0;
    __syncthreads();
    atomicAdd(&total[0], in[t]);
    if (t == 0) out[0] = total[0];
}
