// A shared array of 64 ints indexed by threadIdx.x in a block of 128 threads.
extern "C" __global__ void oob_shared(int* out, const int* in)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t];
}
