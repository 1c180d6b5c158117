// A float4 load from 4 bytes past a 16-byte boundary: every float is 4-byte aligned, but the
// 16-byte vector access is not, and the GPU faults (misaligned address).
extern "C" __global__ void vector_misaligned(const float* in, float* out)
{
    const float4* v = reinterpret_cast<const float4*>(in + 1);
    float4 x = v[threadIdx.x];
    out[threadIdx.x] = x.x + x.y + x.z + x.w;
}
