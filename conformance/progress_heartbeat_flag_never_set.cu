// The broken twin of progress_heartbeat_flag: the writer's condition (threadIdx.x == blockDim.x)
// is never true, so every thread keeps its heartbeat going forever, waiting for a flag nobody
// sets (a hang on any GPU). Its memory changes at every iteration, but only in words of one thread each.
extern "C" __global__ void progress_heartbeat_flag_never_set(volatile int* flag, int* beat, int* count)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == blockDim.x) {   // never true: no thread sets the flag
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
