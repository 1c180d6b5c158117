// BUG: Hillis-Steele scan in ONE buffer with only the barrier after the write: thread t
// reads s[t - offset] while thread t - offset may already be writing it (read/write race).
#define BS 256

extern "C" __global__ void x_scan_inplace_one_barrier(int* out, const int* in)
{
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BS + t];
    __syncthreads();
    for (int offset = 1; offset < BS; offset *= 2) {
        int v = (t >= offset) ? s[t - offset] : 0;
        // missing: __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[blockIdx.x * BS + t] = s[t];
}
