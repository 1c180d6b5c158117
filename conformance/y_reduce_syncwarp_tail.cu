// Tree reduction with barriers while s > 32, then a warp-synchronous tail done right:
// read, __syncwarp, write, __syncwarp.
extern "C" __global__ void y_reduce_syncwarp_tail(const int* in, int* out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int k = blockDim.x / 2; k > 32; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) {
        int v = s[t] + s[t + 32];
        __syncwarp();
        s[t] = v;
        __syncwarp();
        for (int off = 16; off > 0; off >>= 1) {
            if (t < off) v = s[t] + s[t + off];
            __syncwarp();
            if (t < off) s[t] = v;
            __syncwarp();
        }
        if (t == 0) out[blockIdx.x] = s[0];
    }
}
