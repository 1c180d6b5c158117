// Every thread counts rounds modulo `period` and hands its count to its neighbour through shared
// memory between two barriers; the block stops when the count it sees is `stop`. Memory moves every
// round, but only barriers hand values over: every order of the threads runs the same rounds.
extern "C" __global__ void barrier_counter_wraps(int* out, int period, int stop)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int i = 0;
    int next;
    do {
        i = (i + 1) % period;
        s[t] = i;
        __syncthreads();
        next = s[(t + 1) % blockDim.x];
        __syncthreads();
    } while (next != stop);
    out[blockIdx.x * blockDim.x + t] = i;
}
