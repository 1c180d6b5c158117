// Warp 0 produces 64 items into an 8-slot ring in shared memory, warp 1 consumes them.
#define SLOTS 8
extern "C" __global__ void hunt_ring_two_warps(const int* in, int* out)
{
    __shared__ int ring[SLOTS];
    __shared__ volatile int head, tail;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) { head = 0; tail = 0; }
    __syncthreads();
    if (lane != 0) return;
    if (warp == 0) {
        for (int i = 0; i < 64; ++i) {
            while (head - tail == SLOTS) { }
            __threadfence_block();
            ring[head % SLOTS] = in[i];
            __threadfence_block();
            head = head + 1;
        }
    } else {
        int sum = 0;
        for (int i = 0; i < 64; ++i) {
            while (head == tail) { }
            __threadfence_block();
            sum += ring[tail % SLOTS] * (i + 1);
            __threadfence_block();
            tail = tail + 1;
        }
        *out = sum;
    }
}
