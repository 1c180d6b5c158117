// Block 0 spins on a flag that block 1 sets, then syncs. Nothing orders blocks (and the
// plain load may be hoisted out of the loop): undefined.
extern "C" __global__ void y_spin_flag_other_block(int* flag, int* out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (blockIdx.x == 1) {
        if (t == 0) flag[0] = 1;
        return;
    }
    while (flag[0] == 0) { }
    s[t] = t;
    __syncthreads();
    out[t] = s[31 - t];
}
