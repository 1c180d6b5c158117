// Label propagation to a fixed point: each thread takes the smaller label of its neighbours.
extern "C" __global__ void hunt_dowhile_count(const int* in, int* out, int* rounds)
{
    __shared__ int lab[96];
    int t = threadIdx.x;
    lab[t] = in[t];
    int r = 0, changed;
    do {
        __syncthreads();
        int best = lab[t];
        if (t > 0 && lab[t - 1] < best) best = lab[t - 1];
        if (t < 95 && lab[t + 1] < best) best = lab[t + 1];
        changed = best != lab[t];
        __syncthreads();
        lab[t] = best;
        ++r;
    } while (__syncthreads_count(changed) > 0);
    out[t] = lab[t];
    if (t == 0) *rounds = r;
}
