// A per-thread local array indexed by loop variables and by data.
extern "C" __global__ void local_array(const int* in, int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int r[8];
    for (int k = 0; k < 8; ++k) r[k] = in[t] * (k + 1);
    int j = in[t] & 7;
    r[j] = -r[j];
    int acc = 0;
    for (int k = 7; k >= 0; --k) acc = acc * 3 + r[k] % 5;
    out[t] = acc;
}
