#!/bin/bash
# Round 13's GPU measurements in one call. Only an H200 is worth the lease here: heldout10 blind
# on the H200 (times kept in the JSON, not printed), heldout9 and heldout8 (seen on the H100,
# never measured on an H200) and the mb8 shared-atomic microbenchmarks on the H200 (the H100's are
# in course/data/h100-microbench8.json). On any other card it stops after naming the card, so
# the lease can be handed back and drawn again.
set -u
# The device's Python lacks the course's notebook dependencies, so barrier_course does not import
# there: measure_timing_sweeps.py falls back to bare copies of the kernel modules.
cp barrier_course/lessons/validation_kernels.py barrier_course/lessons/tuning_kernels.py tools/
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
if ! grep -q H200 "$OUT/gpu.txt"; then
    echo "not an H200: nothing measured"
    exit 0
fi
python3 tools/measure_timing_sweeps.py --out "$OUT/h10" --roles heldout10 --budget-s 240 > "$OUT/h10.log" 2>&1
tail -4 "$OUT/h10.log"
python3 tools/measure_timing_sweeps.py --out "$OUT/mb8" --only mb8/ --budget-s 45 > "$OUT/mb8.log" 2>&1
tail -3 "$OUT/mb8.log"
python3 tools/measure_timing_sweeps.py --out "$OUT/h9" --roles heldout9,heldout8 --budget-s 150 > "$OUT/h9.log" 2>&1
tail -3 "$OUT/h9.log"
ls -R "$OUT"
