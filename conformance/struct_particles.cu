// An array of structs in global memory, a struct per thread in registers, and a __shared__
// array of structs: each particle moves by its velocity, then reads its mirror's new x.
struct Particle {
    float x, y;
    float vx, vy;
};

typedef struct {
    float x, y;
} Point;

__device__ Point advance(Particle p, float dt)
{
    Point q;
    q.x = p.x + p.vx * dt;
    q.y = p.y + p.vy * dt;
    return q;
}

extern "C" __global__ void struct_particles(Particle* ps, float* mirror_x, float dt)
{
    __shared__ Point tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    Particle p = ps[i];
    Point q = advance(p, dt);
    ps[i].x = q.x;
    Particle* self = &ps[i];
    self->y = q.y;
    tile[threadIdx.x] = q;
    __syncthreads();
    mirror_x[i] = tile[blockDim.x - 1 - threadIdx.x].x + (float)sizeof(Particle);
}
