// BUG: the halos are loaded after the barrier: threads 0-2 and 125-127 read halo cells
// that threads 0-2 may not have written yet.
// 1-D stencil of radius 3 (the classic intro example): the first RADIUS threads of the block
// also load the left and right halos; one barrier; then each output sums 7 inputs.
#define RADIUS 3
#define BLOCK 128

extern "C" __global__ void x_stencil1d_halo_after_barrier(int* out, const int* in, int n)
{
    __shared__ int temp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = (g < n) ? in[g] : 0;
    __syncthreads();
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS, right = g + BLOCK;
        temp[l - RADIUS] = (left >= 0) ? in[left] : 0;
        temp[l + BLOCK] = (right < n) ? in[right] : 0;
    }
    int result = 0;
    for (int off = -RADIUS; off <= RADIUS; off++)
        result += temp[l + off];
    if (g < n)
        out[g] = result;
}
