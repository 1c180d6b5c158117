// Per-thread local arrays with dynamic indices: each thread insertion-sorts 8 values and
// stores the median pair's sum and a lookup through a data-dependent index.
#define K 8

extern "C" __global__ void x_local_sort(const int* in, int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int a[K];
    for (int i = 0; i < K; i++)
        a[i] = in[t * K + i];
    for (int i = 1; i < K; i++) {
        int key = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = key;
    }
    int idx = a[0] & (K - 1);
    out[t * 3 + 0] = a[K / 2 - 1] + a[K / 2];
    out[t * 3 + 1] = a[idx];
    out[t * 3 + 2] = a[K - 1] - a[0];
}
