// A histogram with one atomic per distinct key of a warp (__match_any_sync groups the lanes).
extern "C" __global__ void hunt_match_any_histogram(const int* keys, int* hist)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int key = keys[i];
    unsigned peers = __match_any_sync(0xffffffffu, key);
    int leader = __ffs(peers) - 1;
    if ((threadIdx.x & 31) == leader) atomicAdd(&hist[key], __popc(peers));
}
