// Pointers to __device__ functions: chosen per thread, called as f(x) and (*f)(x), and a
// function taking one as a parameter.
typedef float (*op_t)(float);

__device__ float twice(float x) { return 2.0f * x; }
__device__ float square(float x) { return x * x; }
__device__ float apply(op_t f, float x) { return f(x) + 1.0f; }

extern "C" __global__ void cxx_function_pointers(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    op_t f = (i % 3 == 0) ? square : &twice;
    out[i] = (*f)(in[i]) + apply(f, 1.0f);
}
