// The gate again, but block 0 also fills a table the others read after the gate opens, and
// there is no __threadfence() before the gate's volatile store: the table is not handed over.
extern "C" __global__ void hunt3_gate_volatile_nofence_data(const int* in, int* out, int* gate, int* table)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0) {
        table[threadIdx.x] = 3 * in[threadIdx.x];
        __syncthreads();
        if (threadIdx.x == 0) *(volatile int*)gate = 1;
        out[i] = table[threadIdx.x];
    } else {
        if (threadIdx.x == 0) { while (*(volatile int*)gate == 0) { } __threadfence(); }
        __syncthreads();
        out[i] = table[threadIdx.x];
    }
}
