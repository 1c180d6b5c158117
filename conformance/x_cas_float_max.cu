// A float atomic max built from atomicCAS on the bit pattern (the usual CAS loop), and a
// lock-free counter built from atomicCAS; both results do not depend on the order.
__device__ float atomicMaxFloat(float* addr, float value)
{
    int* addr_as_int = (int*)addr;
    int old = *addr_as_int;
    int assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(addr_as_int, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ int casIncrement(int* counter)
{
    int old = *counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(counter, assumed, assumed + 1);
    } while (assumed != old);
    return old;
}

extern "C" __global__ void x_cas_float_max(const float* x, float* fmax, int* counter,
                                           int* tickets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMaxFloat(fmax, x[i]);
        int ticket = casIncrement(counter);
        atomicAdd(&tickets[ticket], 1);
    }
}
