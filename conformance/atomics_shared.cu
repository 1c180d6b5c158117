// Atomics on shared memory: a histogram, and a ticket (atomicInc) that gives each thread
// a unique slot; the permutation is then inverted, so the output is order-independent.
extern "C" __global__ void atomics_shared(const int* in, int* hist, int* perm_count)
{
    __shared__ int h[16];
    __shared__ unsigned int next;
    __shared__ int order[256];
    int t = threadIdx.x;
    if (t < 16) h[t] = 0;
    if (t == 0) next = 0;
    __syncthreads();
    atomicAdd(&h[in[blockIdx.x * blockDim.x + t] & 15], 1);
    unsigned int my = atomicInc(&next, 0xffffffffu);
    order[my] = t;
    int seen_max = atomicMax(&h[0], 0);
    __syncthreads();
    if (t < 16) atomicAdd(&hist[t], h[t]);
    perm_count[blockIdx.x * blockDim.x + order[t]] += 1 + (seen_max < 0);
}
