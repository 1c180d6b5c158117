"""simcore.tune: estimate one kernel at several block sizes and pick the fastest (model)."""
import sys
import time
from dataclasses import dataclass

from ..errors import LaunchError
from .estimate import estimate

DEFAULT_BLOCKS = (32, 64, 128, 256, 512, 1024)


@dataclass
class Sweep:
    """Model estimates of one kernel over block sizes. `rows`: [(block size, Estimate)]."""
    kernel: str
    gpu: str
    rows: list

    @property
    def best(self):
        """The block size with the smallest estimated time (model)."""
        return min(self.rows, key=lambda r: r[1].rank)[0]

    @property
    def times_ms(self):
        return {b: e.time_ms for b, e in self.rows}

    @property
    def table(self):
        """A plain-text table of the estimates (model), one row per block size."""
        head = (f"MODEL estimates for {self.kernel} on {self.gpu} (not measurements)\n"
                f"{'block':>6} {'time ms':>9} {'bound':>9} {'blocks/SM':>9} {'waves':>8} "
                f"{'issue':>8} {'shared':>8} {'dram':>8} {'l2':>8} {'atomics':>8} {'dispatch':>8} {'latency':>8} "
                f"{'overlap':>8} {'typ. err':>8}")
        lines = [head]
        footer = ("typ. err: how far H200 estimates with the same bound typically were from the measured time "
                  "(held-out validation, docs/timing-validation.md); ? = this GPU was not validated")
        best = self.best
        for b, e in self.rows:
            bd = e.breakdown
            lines.append(f"{b:>6} {e.time_ms:9.4f} {e.bound:>9} {e.occupancy.blocks_per_sm:>9} {e.waves:8.2f} "
                         + " ".join(f"{bd[k]:8.4f}" for k in ("issue", "shared", "dram", "l2", "atomics",
                                                               "dispatch", "latency", "overlap"))
                         + (f" {'±' + str(e.error_bar) + '%':>8}" if e.error_bar is not None else f" {'?':>8}")
                         + ("   <- best (model)" if b == best else ""))
        return "\n".join(lines + [footer])

    def __str__(self):
        return self.table

    def __repr__(self):
        return f"<Sweep: model estimates of {self.kernel} on {self.gpu}, best block {self.best}>"

    def plot(self, ax=None, measured=None):
        """Estimated time per block size (and `measured` {block: ms}, if given). Needs matplotlib."""
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        blocks = [b for b, _ in self.rows]
        ax.plot(blocks, [e.time_ms for _, e in self.rows], "o-", label=f"model ({self.gpu})")
        if measured:
            mb = sorted(measured)
            ax.plot(mb, [measured[b] for b in mb], "s--", label="measured")
        ax.set_xscale("log", base=2)
        ax.set_xticks(blocks)
        ax.set_xticklabels([str(b) for b in blocks])
        ax.set_xlabel("threads per block")
        ax.set_ylabel("ms")
        ax.set_title(f"{self.kernel}: model estimate per block size")
        ax.legend()
        return ax


def _progress(done, total, started, out):
    width = 24
    filled = width * done // total
    out.write(f"\rtuning [{'#' * filled}{'.' * (width - filled)}] {done}/{total} block sizes, "
              f"{time.perf_counter() - started:.1f} s")
    if done == total:
        out.write("\n")
    out.flush()


def tune(kernel, make_launch, blocks=DEFAULT_BLOCKS, gpu="H200", progress=None):
    """Estimate `kernel` at every block size in `blocks` on the `gpu` model.

    kernel: a simcore Kernel, or a function block -> Kernel (for kernels compiled per size,
      e.g. with -DBLOCK=...).
    make_launch(block) -> (grid, block_shape, args) or (grid, block_shape, args, shared_mem).
    progress: None (a text progress bar when the sweep takes over a second), True or False.
    """
    if not blocks:
        raise LaunchError("tune() needs at least one block size")
    # stdout, not stderr: a notebook shows stderr in a pink box, as if something had gone wrong
    rows, started, out = [], time.perf_counter(), sys.stdout
    shown = False
    for i, b in enumerate(blocks):
        k = kernel(b) if callable(kernel) and not hasattr(kernel, "program") else kernel
        launch = make_launch(b)
        if not isinstance(launch, tuple) or len(launch) not in (3, 4):
            raise LaunchError(f"make_launch({b}) must return (grid, block, args) or (grid, block, args, "
                              f"shared_mem), not {launch!r:.80}")
        grid, shape, args = launch[:3]
        shared = launch[3] if len(launch) == 4 else 0
        rows.append((b, estimate(k, grid, shape, args, shared_mem=shared, gpu=gpu)))
        if progress or (progress is None and time.perf_counter() - started > 1.0):
            shown = True
            _progress(i + 1, len(blocks), started, out)
    if shown and len(rows) < len(blocks):
        out.write("\n")
    name = rows[0][1].kernel
    return Sweep(name, rows[0][1].gpu, rows)
