// Each warp runs its own number of rounds (its row's length), synchronising only itself.
extern "C" __global__ void hunt_warp_trip_syncthreads(const int* len, const int* in, int* out)
{
    __shared__ int buf[4][32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int v = in[threadIdx.x];
    int n = len[w];
    for (int r = 0; r < n; ++r) {
        buf[w][lane] = v;
        __syncwarp();
        v += buf[w][(lane + 1) & 31];
        __syncthreads();
    }
    __syncthreads();
    out[threadIdx.x] = v;
}
