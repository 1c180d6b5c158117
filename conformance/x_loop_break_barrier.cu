// Per-thread loops with continue and break (different trip counts per lane), and the
// barrier AFTER the loop, where every thread arrives: legal. Then neighbours exchange.
extern "C" __global__ void x_loop_break_barrier(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int x = in[blockIdx.x * 128 + t];
    int acc = 0;
    for (int i = 0; i < 64; i++) {
        if ((i + x) % 3 == 0) continue;
        acc += i;
        if (acc > x) break;
    }
    s[t] = acc;
    __syncthreads();
    out[blockIdx.x * 128 + t] = s[t] - s[(t + 1) % 128];
}
