#!/bin/bash
# Round 12's GPU measurements in one call: heldout10 blind (times kept in the JSON, not printed),
# the SASS of the tiled matmuls (do their unrolled inner loops read the broadcast row of A as
# LDS.128? the model counts one shared load per product), and, on an H200, heldout9 and heldout8
# (seen on the H100; never measured on an H200).
set -u
# The device's Python lacks the course's notebook dependencies, so barrier_course does not import
# there: measure_timing_sweeps.py and dump_sass.py fall back to bare copies of the kernel modules.
cp barrier_course/lessons/validation_kernels.py barrier_course/lessons/tuning_kernels.py tools/
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
python3 tools/measure_timing_sweeps.py --out "$OUT/h10" --roles heldout10 --budget-s 240 > "$OUT/h10.log" 2>&1
tail -25 "$OUT/h10.log"
python3 tools/dump_sass.py --only matmul_abt,matmul_at_b,matmul_two_tiles,matmul_tiled_rect --block 1024 \
    --grep LDS,FFMA,BAR > "$OUT/sass.txt" 2>&1
grep -c LDS "$OUT/sass.txt"
if grep -q H200 "$OUT/gpu.txt"; then
    python3 tools/measure_timing_sweeps.py --out "$OUT/h9" --roles heldout9,heldout8 --budget-s 120 > "$OUT/h9.log" 2>&1
    tail -3 "$OUT/h9.log"
fi
ls -R "$OUT"
