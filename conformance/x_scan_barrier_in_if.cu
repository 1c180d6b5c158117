// BUG: Hillis-Steele scan whose barriers sit inside `if (t >= offset)`: threads below
// offset skip them (for offset = 1, lane 0 of warp 0 alone).
#define BS 128

extern "C" __global__ void x_scan_barrier_in_if(int* out, const int* in)
{
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BS + t];
    __syncthreads();
    for (int offset = 1; offset < BS; offset *= 2) {
        if (t >= offset) {
            int v = s[t - offset];
            __syncthreads();
            s[t] += v;
            __syncthreads();
        }
    }
    out[blockIdx.x * BS + t] = s[t];
}
