// Vectorised loads and stores through reinterpret_cast<float4*> (16-byte aligned: the array
// starts aligned and each thread takes a whole float4), and int2/make_* constructors.
extern "C" __global__ void vector_float4(const float* in, float* out, int* pairs, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = reinterpret_cast<const float4*>(in)[i];
    float4 w = make_float4(v.w, v.z, v.y, v.x + 1.0f);
    reinterpret_cast<float4*>(out)[i] = w;
    int2 p = make_int2(i, i * i);
    p.y += 1;
    reinterpret_cast<int2*>(pairs)[i] = p;
}
