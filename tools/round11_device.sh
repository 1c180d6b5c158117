#!/bin/bash
# Round 11's GPU measurements in one call: heldout9 blind (times kept in the JSON, not printed; measured on
# an H100 in round 11, still to be measured on an H200),
# the mb8 shared-atomic microbenchmarks and their SASS, and, on an H200, heldout8.
set -u
# The device's Python lacks the course's notebook dependencies, so barrier_course does not import
# there: measure_timing_sweeps.py falls back to bare copies of the two kernel modules next to it.
cp barrier_course/lessons/validation_kernels.py barrier_course/lessons/tuning_kernels.py tools/
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
python3 tools/measure_timing_sweeps.py --out "$OUT/h9" --roles heldout9 --budget-s 190 > "$OUT/h9.log" 2>&1
tail -25 "$OUT/h9.log"
python3 tools/measure_timing_sweeps.py --out "$OUT/mb8" --only mb8/ --budget-s 45 > "$OUT/mb8.log" 2>&1
tail -3 "$OUT/mb8.log"
python3 tools/dump_sass.py --only mb8/shared_atomic_op/max/lanes/W1,mb8/shared_atomic_op/min/warps/W1,mb8/shared_atomic_op/add/lanes/W1,mb8/shared_atomic_op/add_ret/lanes/W1,slot4_block_range,flush8_warp_float \
    --grep ATOMS,REDUX,VOTE,ATOM,RED,POPC,SHFL > "$OUT/sass.txt" 2>&1
if grep -q H200 "$OUT/gpu.txt"; then
    python3 tools/measure_timing_sweeps.py --out "$OUT/h8" --roles heldout8 --budget-s 40 > "$OUT/h8.log" 2>&1
    tail -3 "$OUT/h8.log"
fi
ls -R "$OUT"
