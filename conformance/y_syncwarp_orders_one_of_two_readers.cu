// Threads 0 (warp 0) and 32 (warp 1) read s[0]; then __syncwarp(), and thread 1 (warp 0)
// overwrites s[0]. __syncwarp orders the write after thread 0's read only: thread 32 is in
// another warp and no barrier separates its read from the write (write-after-read race).
extern "C" __global__ void y_syncwarp_orders_one_of_two_readers(int* out)
{
    __shared__ int s[1];
    int t = threadIdx.x;
    if (t == 0) s[0] = 1;
    __syncthreads();
    int v = 0;
    if (t == 0 || t == 32) v = s[0];
    __syncwarp();
    if (t == 1) s[0] = 2;
    out[t] = v;
}
