// Thread 63 reads s[64], which nobody wrote, but a select throws the value away: what
// reaches global memory is always defined.
extern "C" __global__ void y_uninit_select_unused(const int* in, int* out)
{
    __shared__ int s[65];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int right = s[t + 1];
    out[t] = (t < 63) ? right - s[t] : -1;
}
