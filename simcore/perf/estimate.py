"""kernel.estimate(...): validate the launch like a real one, simulate a sample, apply the model."""
from ..errors import LaunchError, SimcoreError, SimulatorError
from ..launch import Launch, check_limits, dims, marshal, shared_bytes
from .counters import estimate_registers
from .hardware import get_gpu
from .model import estimate_time, l1_sectors_per_block
from .sampling import run_sample


def estimate(kernel, grid, block, args, *, shared_mem=0, gpu="H200", sample_pairs=3):
    """A model estimate (not a measurement) of `kernel`'s time for this launch on `gpu`.

    The launch is checked as a real one would be; only a sample of its blocks is simulated
    (first, middle and last, in pairs), with the launch's own blockIdx values, on copies of the
    arrays (the caller's arrays are not written)."""
    gpu = get_gpu(gpu)
    if kernel.module.backend == "cupy":
        raise LaunchError("estimate() needs the simulator: compile the module with backend='sim' "
                          "(the model simulates a sample of the blocks)")
    prog = kernel.program
    grid = dims(grid, "grid")
    block = dims(block, "block")
    check_limits(grid, block)
    shared = shared_bytes(kernel.static_shared_bytes, shared_mem, gpu)
    values = marshal(kernel, args)
    launch = Launch(kernel.name, grid, block, int(shared_mem), "sim")
    registers = estimate_registers(prog)
    l1 = l1_sectors_per_block(gpu, block[0] * block[1] * block[2], registers, shared, grid[0] * grid[1] * grid[2])
    try:
        counters = run_sample(prog, launch, values, sample_pairs, l1_sectors=l1)
    except SimcoreError as e:
        raise e.with_traceback(None) from None
    except Exception as e:     # a bug in simcore: say so plainly
        raise SimulatorError(f"internal simulator error while estimating {kernel.name} ({type(e).__name__}: "
                             f"{e}). This is a bug in simcore, not in your kernel.") from None
    region_bytes, element_bytes = {}, {}
    for p, v in zip(prog.params, values):
        if p.is_pointer:
            region_bytes[p.name] = v.nbytes
            element_bytes[p.name] = int(p.dtype.itemsize)
    region_bytes.update(counters.region_bytes)
    # a float* read through reinterpret_cast<const float4 *> moves 16 bytes per lane per instruction
    for name, width in counters.lane_bytes.items():
        element_bytes[name] = max(element_bytes.get(name, 0), width)
    return estimate_time(gpu, kernel.name, grid, block, counters, registers, shared, region_bytes,
                         element_bytes)
