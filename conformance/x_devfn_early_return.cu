// __device__ functions with returns inside loops (linear search, primality test by trial
// division, gcd with while), called with per-thread arguments.
__device__ int find_first(const int* arr, int len, int key)
{
    for (int i = 0; i < len; i++) {
        if (arr[i] == key)
            return i;
        if (arr[i] > 1000)
            return -2;
    }
    return -1;
}

__device__ bool is_prime(int v)
{
    if (v < 2) return false;
    for (int d = 2; d * d <= v; d++)
        if (v % d == 0) return false;
    return true;
}

__device__ int gcd(int a, int b)
{
    while (b != 0) {
        int r = a % b;
        a = b;
        b = r;
    }
    return a;
}

extern "C" __global__ void x_devfn_early_return(const int* table, const int* keys, int* out,
                                                int len, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int k = keys[t];
    out[t * 3] = find_first(table, len, k);
    out[t * 3 + 1] = is_prime(k) ? 1 : 0;
    out[t * 3 + 2] = gcd(k, 360);
}
