// A grid barrier by hand (blocks all resident): count in, the last one flips the generation;
// the others wait for it. Phase 1 writes, phase 2 reads another block's values.
__device__ void grid_barrier(unsigned* count, volatile unsigned* gen)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned g = *gen;
        __threadfence();
        if (atomicAdd(count, 1) == gridDim.x - 1) {
            *count = 0;
            __threadfence();
            *gen = g + 1;
        } else {
            while (*gen == g) { }
            __threadfence();
        }
    }
    __syncthreads();
}
extern "C" __global__ void hunt_hand_grid_barrier(const int* in, int* mid, int* out, unsigned* count, unsigned* gen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = gridDim.x * blockDim.x;
    mid[i] = in[i] * 2;
    grid_barrier(count, gen);
    out[i] = mid[n - 1 - i];
}
