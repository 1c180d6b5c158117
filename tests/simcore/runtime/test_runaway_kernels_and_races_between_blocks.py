"""Kernels from real code that once went wrong, each pinned by a test that failed
before its fix."""
import numpy as np
import pytest

import simcore

# ---------------------------------------------------------------- defects 2 and 3: readers of
# several blocks are folded into one shadow record; the record must keep that they span blocks.

READ_THEN_ONE_BLOCK_WRITES = r"""
extern "C" __global__ void k(float *a, float *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = a[0];   // every thread of every block reads a[0]
    __syncthreads();                                     // orders this block's reads only
    if (blockIdx.x == WRITER && threadIdx.x == 0) a[0] = 1.0f;
}
"""


def launch_readers(writer, blocks, threads, schedule="lockstep"):
    a = np.zeros(1, np.float32)
    out = np.zeros(blocks * threads, np.float32)
    simcore.RawKernel(READ_THEN_ONE_BLOCK_WRITES.replace("WRITER", str(writer)), "k")(
        (blocks,), (threads,), (a, out), schedule=schedule)


@pytest.mark.parametrize("writer, blocks, threads", [(1, 2, 64), (3, 4, 32), (3, 4, 64), (0, 2, 64), (1, 4, 32)])
@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
def test_a_write_after_reads_of_several_blocks_is_a_race_between_blocks(writer, blocks, threads, schedule):
    with pytest.raises(simcore.DataRace) as info:
        launch_readers(writer, blocks, threads, schedule)
    assert info.value.report.get("cross_block") is True
    assert "different blocks" in str(info.value)
    assert "put __syncthreads() between" not in str(info.value)     # cannot order two blocks


@pytest.mark.parametrize("threads", [32, 64])
def test_one_block_reading_then_writing_after_its_barrier_is_legal(threads):
    launch_readers(0, 1, threads)


def test_a_reader_of_another_block_in_an_earlier_barrier_interval_is_kept():
    """Block 0 reads in its first interval, block 1 in its second: barrier intervals of two
    blocks are not comparable, so block 0's read must survive block 1's."""
    src = r"""
    extern "C" __global__ void k(float *a, float *out)
    {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (blockIdx.x == 0) out[t] = a[0];
        __syncthreads();
        if (blockIdx.x == 1) out[t] = a[0];
        __syncthreads();
        if (blockIdx.x == 1 && threadIdx.x == 0) a[0] = 1.0f;
    }
    """
    a, out = np.zeros(1, np.float32), np.zeros(64, np.float32)
    with pytest.raises(simcore.DataRace) as info:
        simcore.RawKernel(src, "k")((2,), (32,), (a, out))
    assert info.value.report.get("cross_block") is True


def test_reads_of_several_blocks_alone_are_no_race():
    src = r"""
    extern "C" __global__ void k(const float *a, float *out)
    {
        __shared__ float s[64];
        s[threadIdx.x] = a[0] + a[threadIdx.x % 4];
        __syncthreads();
        out[blockIdx.x * blockDim.x + threadIdx.x] = s[63 - threadIdx.x];
    }
    """
    a, out = np.arange(4, dtype=np.float32), np.zeros(256, np.float32)
    simcore.RawKernel(src.replace("const ", ""), "k")((4,), (64,), (a, out))
    assert out[0] == a[0] + a[3]


# ---------------------------------------------------------------- defect 4: a long legal kernel is
# never called an endless loop; a real endless loop is still reported within seconds.

def test_one_block_grid_stride_loop_over_4m_floats_finishes():
    src = r"""
    extern "C" __global__ void total(const float *x, float *out, int n)
    {
        float s = 0.0f;
        for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i];   // 16,384 iterations a thread
        out[threadIdx.x] = s;
    }
    """
    n = 1 << 22
    x, out = np.ones(n, np.float32), np.zeros(256, np.float32)
    k = simcore.RawKernel(src, "total")
    k((1,), (256,), (x, out, np.int32(n)))
    assert (out == n // 256).all()


def test_a_convergence_loop_needs_no_max_steps():
    src = r"""
    extern "C" __global__ void halve(float *x)
    {
        int iterations = 0;
        while (x[threadIdx.x] > 1.0f) { x[threadIdx.x] *= 0.9995f; iterations++; }   // ~27,600 rounds
        x[threadIdx.x] = iterations;
    }
    """
    x = np.full(32, 1e6, np.float32)
    simcore.RawKernel(src, "halve")((1,), (32,), (x,))
    expected = 0
    v = np.float32(1e6)
    while v > 1:
        v = np.float32(v * np.float32(0.9995))
        expected += 1
    assert (x == expected).all() and expected > 20_000


ENDLESS = {
    "while(1);": 'extern "C" __global__ void k(int *flag) { while (1); }',
    "spin on a flag nobody sets": 'extern "C" __global__ void k(volatile int *flag) { while (flag[0] == 0); }',
    "empty body": 'extern "C" __global__ void k(int *flag) { int n = flag[1]; while (n > 0) { } }',
    "one thread spins": r'''extern "C" __global__ void k(volatile int *flag)
        { if (threadIdx.x == 0) { while (flag[0] == 0) { } } }''',
    "writes the same value": r'''extern "C" __global__ void k(int *flag)
        { while (flag[0] == 0) { flag[1 + blockIdx.x * blockDim.x + threadIdx.x] = 7; } }''',
}


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
@pytest.mark.parametrize("name", list(ENDLESS))
@pytest.mark.parametrize("block", [32, 256])
def test_real_endless_loops_fault_within_seconds(name, schedule, block):
    flag = np.zeros(1 + 2 * block, np.int32)
    flag[1] = 1
    src = "// an endless loop\n\n" + ENDLESS[name]
    k = simcore.RawKernel(src, "k")
    with pytest.raises(simcore.StepLimit) as info:
        k((2,), (block,), (flag,), schedule=schedule)
    # found from the state, within a budget of simulated work (never the clock)
    assert info.value.kind == "step_limit" and "Endless loop" in str(info.value)
    assert k.last_launch.steps < 20_000
    loop_line = 1 + next(i for i, text in enumerate(src.splitlines()) if "while" in text)
    assert info.value.report["line"] == loop_line           # never "line 0" (gap c)


def test_a_loop_whose_values_keep_changing_stops_at_the_time_limit_with_an_honest_message(monkeypatch, capsys):
    import simcore.runtime.watchdog as watchdog
    monkeypatch.setattr(watchdog, "PROGRESS_AFTER", 0.2)
    src = r"""
    extern "C" __global__ void count(int *flag)
    {
        int i = 0;
        while (flag[0] == 0) i++;
        flag[1] = i;
    }
    """
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(src, "count")((1,), (32,), (np.zeros(2, np.int32),), time_limit=1.5)
    text = str(info.value)
    assert "time limit was reached" in text and "time_limit=" in text and "loops forever" not in text
    # the grader's protection, not a verdict: its own kind, and it says how far the kernel got
    assert isinstance(info.value, simcore.TimeLimit) and info.value.kind == "time_limit"
    assert "Endless" not in text and "thread-instructions" in text and "0 of 1 blocks finished" in text
    assert "still running" in capsys.readouterr().err           # the progress note


def test_the_time_limit_counts_the_whole_launch_and_says_how_far_it_got(monkeypatch):
    """Issue 18 item 4: the limit is per launch, not per wave (a launch of many waves once ran
    91 s under a 60 s limit), and its report says how far the kernel got. The clock is a
    counter here (each look at it advances it by 1 us), so where it stops depends on the
    simulated steps only, never on the machine's speed."""
    import simcore.launch as launch_module
    import simcore.runtime.engine as engine_module
    import simcore.runtime.watchdog as watchdog
    looks = []

    def counting_clock():
        looks.append(1)
        return len(looks) * 1e-6
    monkeypatch.setattr(watchdog, "launch_clock", counting_clock)
    monkeypatch.setattr(engine_module, "launch_clock", counting_clock)
    monkeypatch.setattr(launch_module.Options, "blocks_per_wave", lambda self, *args, **kwargs: 1)   # a wave a block
    src = """extern "C" __global__ void k(int *o, int n)
    {
        int x = 0;
        for (int i = 0; i < n; ++i) x += i ^ threadIdx.x;
        o[blockIdx.x * blockDim.x + threadIdx.x] = x;
    }"""
    k = simcore.RawKernel(src, "k")
    out = np.zeros(4 * 64, np.int32)
    k((1,), (64,), (out, np.int32(3000)))          # one block, one wave: how many looks it takes
    one_wave_looks, one_wave_steps = len(looks), k.last_launch.steps
    looks.clear()
    with pytest.raises(simcore.TimeLimit) as info:
        # each wave alone stays under the limit; the launch (4 waves) does not
        k((4,), (64,), (out, np.int32(3000)), time_limit=1.5 * one_wave_looks * 1e-6)
    text = str(info.value)
    assert info.value.kind == "time_limit" and "Endless" not in text and "no verdict on the kernel" in text
    assert "1 of 4 blocks finished, block 1 running" in text
    steps = int(text.split(" steps, ")[0].rsplit(" ", 1)[-1].replace(",", ""))
    assert one_wave_steps < steps < 2 * one_wave_steps
    assert "thread-instructions" in text


def test_an_explicit_max_steps_still_stops_a_launch():
    src = 'extern "C" __global__ void k(int *o) { int i = 0; while (o[0] == 0) i++; o[1] = i; }'
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(src, "k")((1,), (32,), (np.zeros(2, np.int32),), max_steps=2000)
    assert "max_steps=2,000" in str(info.value)


@pytest.mark.parametrize("bad", [0, -1, "10", True])
def test_bad_time_limit_is_a_launch_error(bad):
    with pytest.raises(simcore.LaunchError, match="time_limit"):
        simcore.RawKernel('extern "C" __global__ void k(int *o) { o[0] = 1; }', "k")(
            (1,), (1,), (np.zeros(1, np.int32),), time_limit=bad)


LOOP_WITH_A_BRANCH = """extern "C" __global__ void k(int *flag) { int x = 0;
    while (flag[0] == 0) {
        if (threadIdx.x < 16) x++;
    }
    flag[2 + threadIdx.x] = x; }"""


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_step_limit_inside_a_loop_with_a_branch_names_a_line_of_the_loop(schedule, seed):
    """Gap (c): the last step was the branch's reconvergence point, a block without a line of
    its own, and the report said "at line 0"."""
    with pytest.raises(simcore.StepLimit) as info:
        simcore.RawKernel(LOOP_WITH_A_BRANCH, "k")((1,), (64,), (np.zeros(66, np.int32),),
                                                  schedule=schedule, seed=seed, max_steps=2000)
    assert info.value.report["line"] in (2, 3)
    assert "line 0" not in str(info.value)


# ---------------------------------------------------------------- defect 9: bounds that fault fast

CAS_LOOP = r"""
extern "C" __global__ void count(int *counter)
{
    int old = *counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(counter, assumed, assumed + 1);
        DUPLICATE
    } while (assumed != old);
}
"""


@pytest.mark.parametrize("schedule", ["lockstep", "random"])
def test_a_duplicated_atomic_cas_in_a_cas_loop_faults_within_seconds(schedule):
    counter = np.zeros(1, np.int32)
    src = CAS_LOOP.replace("DUPLICATE", "old = atomicCAS(counter, assumed, assumed + 1);")
    k = simcore.RawKernel(src, "count")
    with pytest.raises(simcore.StepLimit) as info:
        k((4,), (128,), (counter,), schedule=schedule)
    assert "atomicCAS that can never succeed" in str(info.value)
    # the verdict comes from a count of failing attempts: a deterministic budget, not the clock
    assert info.value.kind == "step_limit" and k.last_launch.steps < 4 * 4 * 128 + 5_000
    assert info.value.report["line"] == 8          # the duplicate


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
def test_a_correct_cas_loop_under_heavy_contention_counts_every_thread(schedule):
    counter = np.zeros(1, np.int32)
    simcore.RawKernel(CAS_LOOP.replace("DUPLICATE", ""), "count")((8,), (256,), (counter,), schedule=schedule)
    assert counter[0] == 8 * 256


def test_a_lock_held_through_a_long_critical_section_is_no_livelock():
    src = r"""
    extern "C" __global__ void locked(int *lock, float *total, const float *x, int n)
    {
        if (threadIdx.x == 0) {
            while (atomicCAS(lock, 0, 1) != 0) { }          // blocks wait for the lock
            float s = 0.0f;
            for (int i = 0; i < n; i++) s += x[i];           // a long critical section
            *total += s;
            __threadfence();
            atomicExch(lock, 0);
        }
    }
    """
    n = 3000
    x = np.ones(n, np.float32)
    lock, total = np.zeros(1, np.int32), np.zeros(1, np.float32)
    simcore.RawKernel(src, "locked")((4,), (32,), (lock, total, x, np.int32(n)), schedule="round_robin",
                                     checks={"global_race": False})
    assert total[0] == 4 * n


def printed_text(kernel):
    return "".join(kernel.last_launch.printed)


def test_device_printf_is_capped_in_bytes_and_says_so(capsys):
    long_format = "x" * 100_000 + " %d\\n"
    k = simcore.RawKernel('extern "C" __global__ void k(int *o) { printf("' + long_format + '", threadIdx.x); }', "k")
    k((1,), (64,), (np.zeros(1, np.int32),))
    text = printed_text(k)
    assert len(text.encode()) < (1 << 20) + 1000
    assert "stopped at 1,048,576 bytes" in text and "cudaLimitPrintfFifoSize" in text
    assert text.count(" 0\n") == 1                  # whole lines before the cut, in order
    capsys.readouterr()


def test_device_printf_is_capped_in_lines_and_says_so(capsys):
    k = simcore.RawKernel('extern "C" __global__ void k(int *o) { for (int j = 0; j < 100; j++) printf("%d\\n", j); }', "k")
    k((1,), (64,), (np.zeros(1, np.int32),))
    assert len(k.last_launch.printed) == 4096 + 1
    assert "stopped at 4,096 lines" in k.last_launch.printed[-1]
    capsys.readouterr()


def test_a_huge_printf_field_width_is_cut_by_the_buffer(capsys):
    k = simcore.RawKernel('extern "C" __global__ void k(int *o) { printf("%1000000000d\\n", 5); }', "k")
    k((1,), (32,), (np.zeros(1, np.int32),))
    assert "stopped at 1,048,576 bytes" in printed_text(k)
    capsys.readouterr()


def doubling_macros(levels, body="x", sep=" "):
    return ("#define A0 " + body + "\n"
            + "".join(f"#define A{i} A{i - 1}{sep}A{i - 1}\n" for i in range(1, levels + 1)))


@pytest.mark.parametrize("sep, limit", [(" ", "work limit"), (" + ", "work limit")])
def test_macros_that_double_22_times_stop_within_seconds_naming_the_limit(sep, limit):
    src = doubling_macros(22, sep=sep) + 'extern "C" __global__ void k(int *o) { int x = 1; o[0] = A22; }\n'
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src, backend="sim")
    assert limit in str(info.value) and info.value.line == 24


def test_a_macro_expanding_past_a_megabyte_names_the_size_limit():
    src = ("#define A0 " + "y" * 300_000 + "\n#define A1 A0 A0\n#define A2 A1 A1\n"
           'extern "C" __global__ void k(int *o) { A2; }\n')
    with pytest.raises(simcore.CompileError) as info:
        simcore.RawModule(code=src, backend="sim")
    assert "size limit" in str(info.value) and info.value.line == 4


def test_macros_that_double_a_few_times_still_expand():
    src = doubling_macros(6, sep=" + ") + 'extern "C" __global__ void k(int *o) { int x = 1; o[0] = A6; }\n'
    o = np.zeros(1, np.int32)
    simcore.RawModule(code=src, backend="sim").get_function("k")((1,), (1,), (o,))
    assert o[0] == 64


# ---------------------------------------------------------------- gap (a): bar.arrive waits for nobody

PRODUCER_CONSUMER = r"""
extern "C" __global__ void k(const int *in, int *out)
{
    __shared__ int buf[128];
    int t = threadIdx.x;
    if (t < 128) {
        buf[t] = in[t] * 3;
        asm volatile("bar.arrive 1, 256;");        // producers publish and go on
    } else {
        asm volatile("CONSUMER 1, 256;");
        out[t - 128] = buf[t - 128] + buf[255 - t];
    }
}
"""


def run_producer_consumer(consumer, schedule):
    out = np.zeros(128, np.int32)
    simcore.RawKernel(PRODUCER_CONSUMER.replace("CONSUMER", consumer), "k")(
        (1,), (256,), (np.arange(128, dtype=np.int32), out), schedule=schedule)
    return out


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
def test_consumers_that_wait_with_bar_sync_read_the_producers_data(schedule):
    out = run_producer_consumer("bar.sync", schedule)
    assert (out == 3 * np.arange(128) + 3 * (127 - np.arange(128))).all()


@pytest.mark.parametrize("schedule", ["lockstep", "round_robin", "adversarial", "random"])
def test_consumers_that_only_arrive_race_with_the_producers(schedule):
    with pytest.raises((simcore.DataRace, simcore.KernelFault)) as info:
        run_producer_consumer("bar.arrive", schedule)
    assert info.value.kind in ("race", "uninitialized")
    if schedule != "adversarial":
        assert info.value.kind == "race" and "buf[" in str(info.value)


def test_a_producer_that_overwrites_after_arriving_races_with_the_consumers():
    """bar.arrive publishes the writes before it, not the ones after it."""
    src = r"""
    extern "C" __global__ void k(const int *in, int *out)
    {
        __shared__ int buf[128];
        int t = threadIdx.x;
        if (t < 128) {
            buf[t] = in[t];
            asm volatile("bar.arrive 1, 256;");
            buf[t] = 0;                              // nobody waited for the consumers to read
        } else {
            asm volatile("bar.sync 1, 256;");
            out[t - 128] = buf[t - 128];
        }
    }
    """
    for schedule in ("lockstep", "round_robin", "adversarial"):
        with pytest.raises(simcore.DataRace):
            simcore.RawKernel(src, "k")((1,), (256,), (np.arange(128, dtype=np.int32), np.zeros(128, np.int32)),
                                        schedule=schedule)


# ---------------------------------------------------------------- gap (d): the race granule of an
# access whose memory space is known only at run time

@pytest.mark.parametrize("pick", ["use_shared ? sh : g", "sh; if (!use_shared) p = g"])
@pytest.mark.parametrize("use_shared", [0, 1])
def test_bytes_written_through_a_pointer_into_either_space_are_no_race(pick, use_shared):
    src = r"""
    extern "C" __global__ void k(char *g, int *out, int use_shared)
    {
        __shared__ char sh[64];
        __shared__ int total[64];
        int t = threadIdx.x;
        total[t] = t;                   // 4-byte accesses elsewhere in both spaces
        out[t] = total[t];
        char *p = PICK;
        p[t] = (char)t;                 // each thread its own byte: no race
        __syncthreads();
        out[t] += p[63 - t];
    }
    """.replace("PICK", pick)
    g, out = np.zeros(64, np.int8), np.zeros(64, np.int32)
    simcore.RawKernel(src, "k")((1,), (64,), (g, out, np.int32(use_shared)))
    assert (out == np.arange(64) + 63 - np.arange(64)).all()


def test_bytes_written_through_a_pointer_into_either_space_still_race_when_shared():
    src = r"""
    extern "C" __global__ void k(char *g, int *out, int use_shared)
    {
        __shared__ int total[64];
        int t = threadIdx.x;
        total[t] = t;
        out[t] = total[t];
        char *p = use_shared ? (char *)total : g;
        p[t / 2] = (char)t;             // two threads per byte
    }
    """
    with pytest.raises(simcore.DataRace):
        simcore.RawKernel(src, "k")((1,), (64,), (np.zeros(64, np.int8), np.zeros(64, np.int32), np.int32(0)))
