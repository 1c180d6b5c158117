// A barrier inside a loop whose trip count differs only between warps (warp w runs w + 1
// iterations). The barriers complete (warps that left the loop exit), but a warp that
// left early reads tile slots that the next warp is still rewriting: a data race (an
// H200 completed with some wrong answers).
extern "C" __global__ void loop_per_warp_trip(int* out, const int* in)
{
    __shared__ int tile[256];
    int t = threadIdx.x;
    int trips = t / 32 + 1;
    for (int k = 0; k < trips; ++k) {
        tile[t] = in[t] + k;
        __syncthreads();
    }
    out[t] = tile[(t + 32) % 256];
}
