// BUG: odd threads clamp their value and then synchronise inside the branch; even threads
// skip the branch and go on to the store. The inner `if` also diverges.
extern "C" __global__ void x_nested_if_barrier(int* out, const int* in)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t & 1) {
        int a = s[t];
        if (a > 0) s[t] = -a;
        __syncthreads();
    }
    out[t] = s[t ^ 1];
}
