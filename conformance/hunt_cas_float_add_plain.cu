__device__ float atomicAddF(float* addr, float v)
{
    int* a = (int*)addr;
    int old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __float_as_int(v + __int_as_float(assumed)));
    } while (assumed != old);
    return __int_as_float(old);
}
extern "C" __global__ void hunt_cas_float_add_plain(const float* x, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    *sum = *sum + x[i];
}
