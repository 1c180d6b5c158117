// Spin-waits on a flag that nobody ever sets: an endless loop.
extern "C" __global__ void spin_forever(int* flag, int* out)
{
    while (atomicAdd(flag, 0) == 0) {
    }
    out[threadIdx.x] = 1;
}
