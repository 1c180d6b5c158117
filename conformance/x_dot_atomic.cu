// Integer dot product: grid-stride partial sums, a shared-memory tree reduction per block,
// then one atomicAdd per block into the result (long long accumulator).
#define THREADS 128

extern "C" __global__ void x_dot_atomic(const int* a, const int* b, unsigned long long* result,
                                        int n)
{
    __shared__ long long cache[THREADS];
    long long temp = 0;
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
        temp += (long long)a[i] * b[i];
    cache[threadIdx.x] = temp;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (threadIdx.x < i)
            cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
        i /= 2;
    }
    if (threadIdx.x == 0)
        atomicAdd(result, (unsigned long long)cache[0]);
}
