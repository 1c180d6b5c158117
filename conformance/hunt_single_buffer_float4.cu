// Double-buffered float4 tiles: load tile k+1 into the other buffer while reading tile k;
// one barrier per step is enough because a buffer is refilled only two steps after its reads.
extern "C" __global__ void hunt_single_buffer_float4(const float4* in, float* out, int tiles)
{
    __shared__ float4 buf[2][32];
    int t = threadIdx.x;
    buf[0][t] = in[t];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) buf[0][t] = in[(k + 1) * 32 + t];
        float4 v = buf[0][31 - t];
        acc += v.x + v.y + v.z + v.w;
        __syncthreads();
    }
    out[t] = acc;
}
