// min/max/abs on ints and unsigned ints, fminf/fmaxf/fabsf on floats.
extern "C" __global__ void minmax_abs(const int* a, const int* b, int* out, float* outf, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = a[t];
    int y = b[t];
    unsigned int ux = (unsigned int)(x + 1000);
    unsigned int uy = (unsigned int)(y + 1000);
    out[t * 4 + 0] = min(x, y);
    out[t * 4 + 1] = max(x, y);
    out[t * 4 + 2] = abs(x - y);
    out[t * 4 + 3] = (int)min(ux, uy);
    outf[t * 2 + 0] = fminf((float)x, (float)y) * 0.5f;
    outf[t * 2 + 1] = fabsf(fmaxf((float)x, (float)y) - 3.0f);
}
