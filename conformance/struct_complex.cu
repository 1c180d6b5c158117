// A complex number as a struct: passed to and returned from __device__ functions by value;
// the host passes numpy complex64 arrays (the same bytes as {float re, im}).
struct Complex {
    float re;
    float im;
};

__device__ Complex cmul(Complex a, Complex b)
{
    Complex c = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return c;
}

__device__ void cadd_into(Complex* acc, Complex v)
{
    acc->re += v.re;
    acc->im += v.im;
}

extern "C" __global__ void struct_complex(const Complex* a, const Complex* b, Complex* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Complex acc;
    acc.re = 0.0f;
    acc.im = 0.0f;
    cadd_into(&acc, cmul(a[i], b[i]));
    cadd_into(&acc, a[i]);
    out[i] = acc;
}
