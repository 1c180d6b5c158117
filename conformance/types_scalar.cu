// Scalar types and conversions: bool, char, short, int, unsigned, long long, float,
// double (size_t has its own kernel, size_t_index.cu). Narrowing to short wraps modulo 2^16; float -> int truncates toward zero.
extern "C" __global__ void types_scalar(const int* in, int* out_i, unsigned int* out_u,
                                        long long* out_ll, float* out_f, double* out_d, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    bool b = x > 0;
    char c = (char)(x & 0x7f);
    short s = (short)(x * 100);
    unsigned int u = (unsigned int)x;
    long long ll = (long long)x * 3000000000LL;
    long long z = (long long)t * 8;
    float f = (float)x / 3.0f;
    double d = (double)x / 3.0;
    out_i[t * 4 + 0] = b + c;
    out_i[t * 4 + 1] = s;
    out_i[t * 4 + 2] = (int)(f * 2.5f);
    out_i[t * 4 + 3] = (int)z + 4;
    out_u[t] = u + 7u;
    out_ll[t] = ll + (long long)z;
    out_f[t] = f;
    out_d[t] = d;
}
