// __threadfence_block() before the barrier (harmless: the barrier already orders memory).
extern "C" __global__ void threadfence_block(const int* in, int* out)
{
    __shared__ int data[64];
    int t = threadIdx.x;
    data[t] = in[t] * 2;
    __threadfence_block();
    __syncthreads();
    out[t] = data[63 - t];
}
