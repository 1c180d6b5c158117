// Lane 0 of each warp takes a global lock for its warp; the whole warp then updates a shared
// table in global memory, and lane 0 releases the lock once the warp is done (__syncwarp).
extern "C" __global__ void hunt_warp_leader_lock_early_release(const int* in, int* lock, int* table)
{
    int lane = threadIdx.x & 31;
    if (lane == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        __threadfence();
    }
    __syncwarp();
    table[lane] += in[blockIdx.x * blockDim.x + threadIdx.x];
    if (lane == 0) {
        __threadfence();
        atomicExch(lock, 0);
    }
}
