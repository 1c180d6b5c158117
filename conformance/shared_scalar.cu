// A __shared__ scalar: written by one thread, read by all after the barrier.
extern "C" __global__ void shared_scalar(const int* in, int* out)
{
    __shared__ int total;
    __shared__ float scale;
    int t = threadIdx.x;
    if (t == 0) {
        total = in[0] + in[1];
        scale = 0.5f;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = total + (int)(scale * t);
}
