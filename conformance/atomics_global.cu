// Atomics on global memory, with return values used in ways whose result does not depend
// on the order in which the GPU serialises them:
//   atomicAdd tickets are unique (seen[ticket] = 1 marks every slot once);
//   atomicExch returns every value but the last one, which thread 0 reads after a barrier
//   (and then overwrites, so the output does not depend on which thread came last);
//   a CAS loop increments a counter; atomicInc wraps at 16, so each return value 0..15
//   occurs exactly 16 times among 256 calls.
extern "C" __global__ void atomics_global(const int* in, int* counters, int* seen,
                                          unsigned int* bits, int* hist16)
{
    int t = threadIdx.x;
    int v = in[t];
    int ticket = atomicAdd(&counters[0], 1);
    seen[ticket] = 1;
    atomicSub(&counters[1], v);
    atomicMin(&counters[2], v);
    atomicMax(&counters[3], v);
    int old = atomicExch(&counters[4], t);
    seen[256 + old + 1] = 1;
    int assumed;
    int cur = atomicAdd(&counters[5], 0);
    do {
        assumed = cur;
        cur = atomicCAS(&counters[5], assumed, assumed + 1);
    } while (cur != assumed);
    seen[600 + assumed] = 1;
    atomicAnd(&bits[0], ~(1u << (t % 32)) | 0x1u);
    atomicOr(&bits[1], 1u << (v % 32));
    atomicXor(&bits[2], (unsigned int)v);
    unsigned int r = atomicInc(&bits[3], 15u);
    atomicAdd(&hist16[r], 1);
    __syncthreads();
    if (t == 0) {
        int last = counters[4];
        seen[256 + last + 1] = 1;
        counters[4] = -7;
    }
}
