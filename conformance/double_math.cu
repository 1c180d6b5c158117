// Double precision: arithmetic and math functions on doubles.
extern "C" __global__ void double_math(const double* x, double* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    double v = x[t];
    out[t * 4 + 0] = sqrt(v) + 1.0 / 3.0;
    out[t * 4 + 1] = fabs(v - 2.5) * 1e10;
    out[t * 4 + 2] = exp(v) - 1.0;
    out[t * 4 + 3] = (double)(float)v - v;
}
