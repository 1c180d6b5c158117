// Single-precision math functions (compared with a tolerance: the GPU's expf/logf are
// within 2 ulp of the correctly rounded result).
extern "C" __global__ void float_math(const float* x, float* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float v = x[t];
    out[t * 8 + 0] = sqrtf(v);
    out[t * 8 + 1] = expf(-v);
    out[t * 8 + 2] = fabsf(v - 2.0f);
    out[t * 8 + 3] = fminf(v, 1.5f);
    out[t * 8 + 4] = fmaxf(v, 1.5f);
    out[t * 8 + 5] = logf(v);
    out[t * 8 + 6] = floorf(v * 3.0f);
    out[t * 8 + 7] = ceilf(v) - v;
}
