// Hillis-Steele inclusive scan: barriers inside a loop whose trip count is uniform, read
// and write phases separated by barriers.
extern "C" __global__ void scan_loop_barrier(int* out, const int* in)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (int offset = 1; offset < 256; offset *= 2) {
        int v = (t >= offset) ? s[t - offset] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = s[t];
}
