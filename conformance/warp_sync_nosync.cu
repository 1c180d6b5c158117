// Legacy "warp-synchronous" reduction of the last 64 values without __syncwarp: lanes of
// warp 0 read slots that other lanes write in the same step. A race since Volta's
// independent thread scheduling.
extern "C" __global__ void warp_sync_nosync(int* out, const int* in)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0) out[0] = s[0];
}
