#!/bin/bash
# Round 14's GPU measurements in one call. On any card (H100 or H200): the mb9 microbenchmarks
# (the issue and shared-memory rates a round of 1-32 warps per SM reaches) and the SASS of the
# mb9 kernels and of mb8's shared atomics on 2-32 words (how the compiler emits them). On an
# H200 first: heldout10 blind (its times stay in the JSON, not printed), then heldout9, heldout8
# and mb8 (measured on the H100 only so far).
set -u
# The device's Python lacks the course's notebook dependencies, so barrier_course does not import
# there: measure_timing_sweeps.py and dump_sass.py fall back to bare copies of the kernel modules.
cp barrier_course/lessons/validation_kernels.py barrier_course/lessons/tuning_kernels.py tools/
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
h200=0
grep -q H200 "$OUT/gpu.txt" && h200=1
if [ $h200 = 1 ]; then
    python3 tools/measure_timing_sweeps.py --out "$OUT/h10" --roles heldout10 --budget-s 240 > "$OUT/h10.log" 2>&1
    tail -4 "$OUT/h10.log"
fi
python3 tools/measure_timing_sweeps.py --out "$OUT/mb9" --only mb9/ --budget-s 120 > "$OUT/mb9.log" 2>&1
tail -3 "$OUT/mb9.log"
python3 tools/dump_sass.py --only mb9/,mb8/shared_atomic_op/add/lanes --block 1024 \
    --grep FFMA,LDS,ATOMS,REDUX,VOTE,POPC,MATCH,BRA > "$OUT/sass.txt" 2>&1
# per kernel: how many SASS lines of each kind
awk '/^====/{name=$2} !/^====/{for (i=1;i<=NF;i++) if ($i ~ /^(FFMA|LDS|ATOMS|REDUX|VOTE|POPC|MATCH|BRA)/) {c[name" "$i]++; break}} END{for (x in c) print x, c[x]}' \
    "$OUT/sass.txt" | sort
if [ $h200 = 1 ]; then
    python3 tools/measure_timing_sweeps.py --out "$OUT/mb8" --only mb8/ --budget-s 45 > "$OUT/mb8.log" 2>&1
    tail -3 "$OUT/mb8.log"
    python3 tools/measure_timing_sweeps.py --out "$OUT/h9" --roles heldout9,heldout8 --budget-s 120 > "$OUT/h9.log" 2>&1
    tail -3 "$OUT/h9.log"
fi
ls -R "$OUT"
