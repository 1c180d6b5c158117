// The same in global memory: threads 0 (warp 0) and 32 (warp 1) of each block read flag[b];
// after __syncwarp() thread 33 (warp 1) overwrites it. __syncwarp orders the write after
// thread 32's read only, not after thread 0's (write-after-read race within the block).
extern "C" __global__ void y_syncwarp_orders_one_of_two_readers_global(int* flag, int* out)
{
    int t = threadIdx.x;
    int b = blockIdx.x;
    int v = 0;
    if (t == 0 || t == 32) v = flag[b];
    __syncwarp();
    if (t == 33) flag[b] = 2;
    out[b * blockDim.x + t] = v;
}
