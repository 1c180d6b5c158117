// Threads 0 and 2 (both of warp 0) read s[0]; then __syncwarp(), and thread 1 (warp 0)
// overwrites s[0]. __syncwarp orders the write after both reads: no race. (Warp 1 only
// computes, so the read instruction also runs with lanes of another warp.)
extern "C" __global__ void y_syncwarp_orders_both_readers(int* out)
{
    __shared__ int s[1];
    int t = threadIdx.x;
    if (t == 0) s[0] = 1;
    __syncthreads();
    int v = t;
    if (t == 0 || t == 2) v = s[0];
    __syncwarp();
    if (t == 1) s[0] = 2;
    out[t] = v;
}
