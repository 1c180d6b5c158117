// Every thread whose input is positive sets one shared flag to 1, with nothing ordering the
// writes: in any order the flag ends at 1, so the block's verdict is defined (racecheck
// compares the values and reports nothing); C++ still calls it a race, so simcore warns.
extern "C" __global__ void same_value_flag_writes(const int* in, int* out)
{
    __shared__ int any_positive;
    int t = threadIdx.x;
    if (t == 0) any_positive = 0;
    __syncthreads();
    if (in[blockIdx.x * blockDim.x + t] > 0) any_positive = 1;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = any_positive;
}
