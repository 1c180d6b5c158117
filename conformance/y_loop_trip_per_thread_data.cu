// Barrier inside a loop whose trip count is loaded per thread and differs between lanes
// of one warp.
extern "C" __global__ void y_loop_trip_per_thread_data(const int* reps, const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    int v = in[t];
    int m = reps[t];
    for (int k = 0; k < m; ++k) {
        tile[t] = v;
        __syncthreads();
        v += tile[(t + 1) % 64];
        __syncthreads();
    }
    out[t] = v;
}
