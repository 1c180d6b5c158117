// Barrier inside a loop whose trip count is loaded from memory: per block (cnt[blockIdx.x])
// and per thread (reps[i]) where the data happens to hold the same value for every thread
// of a block. What matters is that the count is uniform when it runs.
extern "C" __global__ void y_loop_trip_uniform_data(const int* cnt, const int* reps,
                                                    const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    int v = in[i];
    int n = cnt[blockIdx.x];
    for (int k = 0; k < n; ++k) {
        tile[t] = v;
        __syncthreads();
        v += tile[(t + 1) % 64];
        __syncthreads();
    }
    int m = reps[i];
    for (int k = 0; k < m; ++k) {
        tile[t] = v;
        __syncthreads();
        v -= tile[(t + 7) % 64] / 2;
        __syncthreads();
    }
    out[i] = v;
}
