// Pointer arithmetic, &a[i], *(p + i), const pointers.
extern "C" __global__ void pointer_arith(const float* in, float* out, int n)
{
    const float* row = in + blockIdx.x * blockDim.x;     // this block's slice
    float* dst = &out[blockIdx.x * blockDim.x];
    int t = threadIdx.x;
    if (blockIdx.x * blockDim.x + t >= n) return;
    const float* p = row + t;
    float v = *p;
    if (t > 0) v += *(p - 1);
    float* q = dst + t;
    *q = v;
    q[0] += 1.0f;
    *(dst + t) *= 2.0f;
}
