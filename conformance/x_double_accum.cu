// Double precision: per-thread series (Horner polynomial, a harmonic partial sum in a loop),
// sqrt and division, conversions int <-> double.
extern "C" __global__ void x_double_accum(const double* x, const int* m, double* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    double v = x[t];
    double p = ((0.25 * v - 1.5) * v + 2.0) * v - 3.0;
    double h = 0.0;
    for (int k = 1; k <= m[t]; k++)
        h += 1.0 / (double)k;
    out[t * 3] = p;
    out[t * 3 + 1] = h;
    out[t * 3 + 2] = sqrt(v * v + 1.0) / (double)(m[t] + 1) + (double)(long long)(v * 1000.0);
}
