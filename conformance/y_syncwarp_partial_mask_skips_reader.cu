// Thread 1 reads s[0]; threads 0 and 2 then __syncwarp(0x5), a mask without thread 1, and
// thread 2 overwrites s[0]. Thread 1 never synchronized with thread 2: its read and the write
// are unordered (write-after-read race), although thread 2 did pass a __syncwarp after it.
extern "C" __global__ void y_syncwarp_partial_mask_skips_reader(int* out)
{
    __shared__ int s[1];
    int t = threadIdx.x;
    if (t == 0) s[0] = 1;
    __syncthreads();
    int v = 0;
    if (t == 1) v = s[0];
    if (t == 0 || t == 2) __syncwarp(0x5);
    if (t == 2) s[0] = 2;
    out[t] = v;
}
