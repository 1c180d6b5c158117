// BUG: like x_dot_atomic, but thread 0 of every block adds its partial with a plain +=:
// blocks race on *result (nothing orders blocks of one launch).
#define THREADS 128

extern "C" __global__ void x_dot_plain_accumulate(const int* a, const int* b, long long* result,
                                                  int n)
{
    __shared__ long long cache[THREADS];
    long long temp = 0;
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
        temp += (long long)a[i] * b[i];
    cache[threadIdx.x] = temp;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *result += cache[0];
}
