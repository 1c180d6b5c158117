// A barrier inside a loop whose trip count differs between lanes of one warp, with code
// after the loop. Lanes that finish early wait at the loop exit for their warp-mates,
// which wait at the barrier for them: deadlock (an H200 hung at 256 threads).
extern "C" __global__ void loop_per_thread_trip(int* out, const int* in)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    int trips = 1 + t % 3;
    int acc = 0;
    for (int k = 0; k < trips; ++k) {
        tile[t] = in[t] + k;
        __syncthreads();
        acc += tile[(t + 1) % 256];
        __syncthreads();
    }
    out[t] = acc;
}
