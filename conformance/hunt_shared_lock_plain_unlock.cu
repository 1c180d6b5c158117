// Every thread of the block takes a lock in shared memory, one at a time.
#define LOCK(l)   while (atomicCAS(&(l), 0, 1) != 0) { } __threadfence_block()
#define UNLOCK(l) __threadfence_block(); (l) = 0
extern "C" __global__ void hunt_shared_lock_plain_unlock(const int* in, int* out)
{
    __shared__ int lock, count, sum;
    if (threadIdx.x == 0) { lock = 0; count = 0; sum = 0; }
    __syncthreads();
    LOCK(lock);
    count = count + 1;
    sum = sum + in[blockIdx.x * blockDim.x + threadIdx.x];
    UNLOCK(lock);
    __syncthreads();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = count; out[2 * blockIdx.x + 1] = sum; }
}
