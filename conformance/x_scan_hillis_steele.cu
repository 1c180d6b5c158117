// Hillis-Steele inclusive scan with two shared buffers (ping-pong): one barrier per step.
// Block of 256, n not a multiple of 256 (missing elements count as 0).
#define BS 256

extern "C" __global__ void x_scan_hillis_steele(int* out, const int* in, int n)
{
    __shared__ int buf[2][BS];
    int t = threadIdx.x;
    int g = blockIdx.x * BS + t;
    int pout = 0, pin = 1;
    buf[pout][t] = (g < n) ? in[g] : 0;
    __syncthreads();
    for (int offset = 1; offset < BS; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= offset)
            buf[pout][t] = buf[pin][t] + buf[pin][t - offset];
        else
            buf[pout][t] = buf[pin][t];
        __syncthreads();
    }
    if (g < n)
        out[g] = buf[pout][t];
}
