// Write-after-read race: thread t reads tile[t + 1] and writes tile[t] in the same barrier
// interval, so thread t + 1's write may land before thread t's read.
extern "C" __global__ void war_race(int* out, const int* in)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    tile[t] = in[t];
    __syncthreads();
    int v = tile[(t + 1) % 256];
    tile[t] = v * 2;
    __syncthreads();
    out[t] = tile[t];
}
