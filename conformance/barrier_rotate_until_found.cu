// Values go round the block, one thread further each round, handed over through shared memory
// between barriers, until thread 0 holds `target`. Every value 0..blockDim.x-1 reaches thread 0,
// so a target in that range is found; memory moves every round, in the same way in every order.
extern "C" __global__ void barrier_rotate_until_found(int* out, int target)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int v = t;
    while (!__syncthreads_or(t == 0 && v == target)) {
        s[t] = v;
        __syncthreads();
        v = s[(t + 1) % blockDim.x];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = v;
}
