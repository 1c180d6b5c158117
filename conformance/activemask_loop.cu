// The classic defect: a shuffle mask taken from __activemask() inside a loop whose trip
// count differs between lanes. Lane 4k+3 runs 4 iterations, lane 4k+4 only 1; from the
// second iteration on, lane 4k+3 shuffles from a lane that is no longer in the loop, and
// reads an undefined value that reaches the output.
extern "C" __global__ void activemask_loop(int* out, const int* in)
{
    int t = threadIdx.x;
    int v = in[t];
    int trips = t % 4 + 1;
    for (int k = 0; k < trips; ++k) {
        unsigned int m = __activemask();
        v += __shfl_down_sync(m, v, 1);
    }
    out[t] = v;
}
