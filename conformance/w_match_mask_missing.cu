// __match_any_sync with the full mask inside a branch that only the odd lanes take: the mask
// names the even lanes, alive but not executing it. Undefined.
extern "C" __global__ void w_match_mask_missing(const int* in, unsigned* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = 0;
    if (threadIdx.x % 2 == 1)
        r = __match_any_sync(0xffffffffu, in[g] % 3);
    out[g] = r;
}
