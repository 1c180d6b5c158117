#!/bin/bash
# Round 14's GPU measurements in one call (the first call, with this script at edaa536, measured
# mb9 and dumped the SASS of mb9 and mb8's shared atomics on an H100). On any card: heldout11
# blind (its times stay in the JSON, not printed). On an H200 also: heldout10 blind, then mb9.
set -u
# The device's Python lacks the course's notebook dependencies, so barrier_course does not import
# there: measure_timing_sweeps.py falls back to bare copies of the kernel modules.
cp barrier_course/lessons/validation_kernels.py barrier_course/lessons/tuning_kernels.py tools/
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
python3 tools/measure_timing_sweeps.py --out "$OUT/h11" --roles heldout11 --budget-s 270 > "$OUT/h11.log" 2>&1
tail -4 "$OUT/h11.log"
if grep -q H200 "$OUT/gpu.txt"; then
    python3 tools/measure_timing_sweeps.py --out "$OUT/h10" --roles heldout10 --budget-s 200 > "$OUT/h10.log" 2>&1
    tail -4 "$OUT/h10.log"
    python3 tools/measure_timing_sweeps.py --out "$OUT/mb9" --only mb9/ --budget-s 40 > "$OUT/mb9.log" 2>&1
    tail -3 "$OUT/mb9.log"
fi
ls -R "$OUT"
