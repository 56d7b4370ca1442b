#!/usr/bin/env bash
# For each build given: heat3d stream25d 512^3 analytic over 400 steps while nvidia-smi samples
# the SM clock, power and throttle reasons every 100 ms; then ncu with the clocks left free
# (--clock-control none), one step. Is a kernel slower in `bench` than under ncu because of
# its clocks? After ab-overlay.sh.
#   tests/device/clock-probe.sh EXE...
set -uo pipefail
source "$(dirname "$0")/env.sh"
for exe in "$@"; do
  for rule in ${PROBE_RULES:-analytic}; do
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active --format=csv,noheader -lms 100 >"$out/smi.txt" 2>&1 &
    smi=$!
    r=$(STENCILSCOPE_BENCH_NO_REFERENCE=1 $exe bench heat3d --variant stream25d --device gpu --size 512 --order 8 --steps 400 --repeat 1 \
      --boundary $rule | awk '$1 == "stream25d" { print $4 " ms, copy " $7 }')
    kill $smi
    echo "== $exe $rule: $r; samples: $(sort "$out/smi.txt" | uniq -c | sort -rn | head -4 | tr '\n' ';')"
    STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 100 ncu --clock-control none --kernel-name regex:heat3d_step_stream25d --launch-skip 3 \
      --launch-count 1 --metrics gpu__time_duration.sum,sm__cycles_active.avg,dram__bytes_read.sum "$exe" bench heat3d --variant stream25d \
      --device gpu --size 512 --order 8 --steps 4 --repeat 1 --boundary $rule 2>&1 | grep -E "^\s+(gpu__|dram__|sm__)" | tr -s ' ' | tr '\n' ';'
    echo
  done
done
