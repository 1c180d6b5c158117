// Only threads 0-127 fill the shared array, all 256 read their own slot: threads 128-255
// store never-written shared memory to the output.
extern "C" __global__ void uninit_shared(int* out, const int* in)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    if (t < 128) s[t] = in[t];
    __syncthreads();
    out[t] = s[t];
}
