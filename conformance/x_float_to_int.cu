// float and double to integer conversions truncate toward zero; int to float rounds to
// nearest even above 2^24; unsigned from a positive float; rintf/roundf/floorf for contrast.
extern "C" __global__ void x_float_to_int(const float* f, const double* d, const int* big,
                                          int* out, float* fout, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float x = f[t];
    out[t * 7 + 0] = (int)x;
    out[t * 7 + 1] = (int)d[t];
    out[t * 7 + 2] = (int)(unsigned int)(x < 0.0f ? -x : x);
    out[t * 7 + 3] = (int)rintf(x);
    out[t * 7 + 4] = (int)roundf(x);
    out[t * 7 + 5] = (int)floorf(x);
    out[t * 7 + 6] = (int)(x * 10.0f) / 3;
    fout[t] = (float)big[t];
}
