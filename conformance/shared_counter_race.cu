// count += 1 by every thread on one shared int: a read-modify-write race (not atomic).
extern "C" __global__ void shared_counter_race(int* out)
{
    __shared__ int count[1];   // an array: shared scalars have their own kernel
    int t = threadIdx.x;
    if (t == 0) count[0] = 0;
    __syncthreads();
    count[0] += 1;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = count[0];
}
