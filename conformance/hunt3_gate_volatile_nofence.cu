// A start gate: block 0 opens it with a volatile store and no fence; the other blocks' thread 0
// waits for it with volatile loads. Nothing else crosses blocks: each block then works on its own.
extern "C" __global__ void hunt3_gate_volatile_nofence(const int* in, int* out, int* gate)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) *(volatile int*)gate = 1;
    } else {
        if (threadIdx.x == 0) { while (*(volatile int*)gate == 0) { } }
        __syncthreads();
    }
    out[i] = 2 * in[i];
}
