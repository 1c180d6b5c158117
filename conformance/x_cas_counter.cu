// A lock-free counter from an atomicCAS loop, written as in the CUDA Programming Guide's
// atomicAdd-for-double example: read the old value, then CAS until nobody interfered.
__device__ int casIncrement(int* counter)
{
    int old = *counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(counter, assumed, assumed + 1);
    } while (assumed != old);
    return old;
}

extern "C" __global__ void x_cas_counter(int* counter, int* tickets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int ticket = casIncrement(counter);
        atomicAdd(&tickets[ticket], 1);
    }
}
