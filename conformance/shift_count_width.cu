// A mask of the low `lanes` bits written as (1u << lanes) - 1: undefined in C when lanes is 32
// (a shift by the operand's width). The GPU's shift instruction clamps the count, so this
// build may well give 0xffffffff, but the compiler is free to assume lanes < 32.
extern "C" __global__ void shift_count_width(const int* lanes, unsigned int* mask)
{
    int t = threadIdx.x;
    mask[t] = (1u << lanes[t]) - 1u;
}
