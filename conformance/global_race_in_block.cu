// A race through global memory inside one block: thread t reads the slot that thread
// t ^ 32 (another warp) writes, with no barrier between.
extern "C" __global__ void global_race_in_block(int* buf, int* out)
{
    int t = threadIdx.x;
    buf[t] = t * 3;
    out[t] = buf[t ^ 32];
}
