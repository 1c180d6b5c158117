// count += 1 by every thread on one shared int: a read-modify-write race (not atomic).
extern "C" __global__ void shared_counter_race(int* out)
{
    __shared__ int count;
    int t = threadIdx.x;
    if (t == 0) count = 0;
    __syncthreads();
    count += 1;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = count;
}
