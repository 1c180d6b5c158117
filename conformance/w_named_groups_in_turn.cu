// One barrier id used by two groups in turn, ordered by __syncthreads(): threads 0-63 use
// barrier 1 (count 64) by themselves, then, after the block barrier, threads 64-127 do.
// Legal: no arrival of the second group can fall into the first group's phase.
extern "C" __global__ void w_named_groups_in_turn(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 64) asm volatile("bar.sync 1, 64;" ::: "memory");
    if (t < 64) out[t] = s[63 - t];
    __syncthreads();
    s[t] = in[t] + 1;
    if (t >= 64) asm volatile("bar.sync 1, 64;" ::: "memory");
    if (t >= 64) out[t] = s[191 - t];
}
