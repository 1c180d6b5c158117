// A 1-D convolution with its mask in __constant__ memory (initialised in the source), and a
// __constant__ scale the host may overwrite through RawModule.get_global("scale").
#define RADIUS 2

__constant__ float mask[2 * RADIUS + 1] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
__constant__ float scale = 2.0f;

extern "C" __global__ void constant_conv(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++) {
        int j = i + k;
        if (j >= 0 && j < n) s += mask[k + RADIUS] * in[j];
    }
    out[i] = s * scale;
}
