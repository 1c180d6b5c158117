// Every block reads the whole coefficient array (read-only sharing between blocks is
// not a race) and writes only its own outputs.
extern "C" __global__ void y_readonly_shared_input(const int* coef, const int* x, int* out,
                                                   int ncoef, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0;
    for (int k = 0; k < ncoef; ++k) {
        int j = i + k;
        acc += coef[k] * (j < n ? x[j] : 0);
    }
    out[i] = acc + coef[0];
}
