template <typename T>
__device__ __forceinline__ void atomic_max_float(T* addr, T v)
{
    unsigned int* a = reinterpret_cast<unsigned int*>(addr);
    unsigned int old = *a;
    while (__int_as_float((int)old) < v) {
        unsigned int prev = atomicCAS(a, old, (unsigned int)__float_as_int(v));
        if (prev == old) break;
        old = prev;
    }
}
extern "C" __global__ void hunt_cas_float_max_block_nosync(const float* x, float* out)
{
    __shared__ float best;
    if (threadIdx.x == 0) best = -1e30f;
    __syncthreads();
    atomic_max_float<float>(&best, x[blockIdx.x * blockDim.x + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = best;
}
