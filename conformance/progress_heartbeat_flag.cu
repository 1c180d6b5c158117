// Every thread but the block's last keeps a heartbeat in a word of its own while it waits for
// a flag that the block's last thread sets after its own work. Legal: under independent thread
// scheduling the writer makes progress while the others spin, and every waiter ends.
extern "C" __global__ void progress_heartbeat_flag(volatile int* flag, int* beat, int* count)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == blockDim.x - 1) {
        int acc = 0;
        for (int i = 0; i < 200; i++)
            acc += i;
        beat[t] = acc;
        __threadfence();
        flag[blockIdx.x] = 1;
    } else {
        while (flag[blockIdx.x] == 0) {
            beat[t] = (beat[t] + 1) % 64;
        }
        beat[t] = -1;
        atomicAdd(count, 1);
    }
}
