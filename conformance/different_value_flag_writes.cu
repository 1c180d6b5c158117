// The broken twin of same_value_flag_writes: each writer stores its own thread number, so the
// value left depends on which write comes last: a race.
extern "C" __global__ void different_value_flag_writes(const int* in, int* out)
{
    __shared__ int last_positive;
    int t = threadIdx.x;
    if (t == 0) last_positive = -1;
    __syncthreads();
    if (in[blockIdx.x * blockDim.x + t] > 0) last_positive = t;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = last_positive;
}
