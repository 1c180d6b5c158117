// Iterative prefix maximum: every round each thread takes the max with its left
// neighbour; the loop ends when no thread changed (__syncthreads_or: uniform exit).
extern "C" __global__ void y_syncthreads_or_loop(const int* in, int* out, int* rounds)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int v = in[blockIdx.x * 128 + t];
    s[t] = v;
    __syncthreads();
    int r = 0;
    int changed;
    do {
        int left = (t > 0) ? s[t - 1] : v;
        int nv = left > v ? left : v;
        changed = nv != v;
        __syncthreads();
        v = nv;
        s[t] = v;
        ++r;
    } while (__syncthreads_or(changed));
    out[blockIdx.x * 128 + t] = v;
    if (t == 0) rounds[blockIdx.x] = r;
}
