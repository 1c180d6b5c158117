// The double-buffer loop with ONE buffer: the write of the next tile in iteration k+1
// races with the slower threads' reads of iteration k (no barrier between read and write).
extern "C" __global__ void y_single_buffer_one_barrier(const int* in, int* out, int iters)
{
    __shared__ int buf[64];
    int t = threadIdx.x;
    int acc = 0;
    for (int k = 0; k < iters; ++k) {
        buf[t] = in[k * 64 + t];
        __syncthreads();
        acc += buf[(t + k + 1) % 64] * (k + 1);
    }
    out[t] = acc;
}
