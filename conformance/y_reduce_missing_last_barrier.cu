// Tree reduction with the barrier at the START of each step; the loop stops at k = 2 and
// thread 0 then reads s[0] + s[1], but s[1] was written by thread 1 in the last step with
// no barrier (and no __syncwarp) in between.
extern "C" __global__ void y_reduce_missing_last_barrier(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    for (int k = 64; k > 1; k >>= 1) {
        __syncthreads();
        if (t < k) s[t] += s[t + k];
    }
    if (t == 0) out[blockIdx.x] = s[0] + s[1];
}
