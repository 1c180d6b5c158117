// Double-buffered shared tiles with ONE barrier per iteration: iteration k reads buf[k&1]
// and fills buf[(k+1)&1]; the barrier at the end of k orders both against iteration k+1.
extern "C" __global__ void y_double_buffer_one_barrier(const int* in, int* out, int iters)
{
    __shared__ int buf[2][64];
    int t = threadIdx.x;
    buf[0][t] = in[t];
    __syncthreads();
    int acc = 0;
    for (int k = 0; k < iters; ++k) {
        int cur = k & 1;
        if (k + 1 < iters) buf[cur ^ 1][t] = in[(k + 1) * 64 + t];
        acc += buf[cur][(t + k) % 64] * (k + 1);
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = acc + (int)blockIdx.x;
}
