// A block-wide work queue: thread 0 advances a shared cursor between barriers; every thread
// reads the same cursor, so the break out of the loop (after a barrier) is uniform.
extern "C" __global__ void y_work_queue_uniform_break(const int* in, int* out, int n)
{
    __shared__ int next;
    int t = threadIdx.x;
    if (t == 0) next = 0;
    __syncthreads();
    while (true) {
        int cur = next;
        __syncthreads();
        if (cur >= n) break;
        int i = cur + t;
        if (i < n) out[i] = in[i] * 3 + cur;
        if (t == 0) next = cur + blockDim.x;
        __syncthreads();
    }
}
