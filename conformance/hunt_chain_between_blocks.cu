#define SIGNAL(f) do { __threadfence(); *(volatile int*)(f) = 1; } while (0)
#define WAIT(f)   do { while (*(volatile int*)(f) == 0) { } __threadfence(); } while (0)
// Block b waits for block b-1's row, adds its own and passes the running sum on (a chain).
extern "C" __global__ void hunt_chain_between_blocks(const int* in, int* row, int* flags)
{
    int b = blockIdx.x, t = threadIdx.x;
    int prev = 0;
    if (b > 0) {
        if (t == 0) WAIT(&flags[b - 1]);
        __syncthreads();
        prev = row[(b - 1) * 32 + t];
    }
    row[b * 32 + t] = prev + in[b * 32 + t];
    __syncthreads();
    if (t == 0) SIGNAL(&flags[b]);
}
