#!/usr/bin/env bash
# On the GPU machine: build build-gpu (GUI off), then the tuning experiments of the
# streaming kernels (docs/perf.md): heat2d stream's strip height, its warp
# stall reasons and DRAM bytes under ncu, and heat3d stream25d's DRAM bytes.
# Output to $OUT/tune.txt (and the terminal).
set -uo pipefail
source "$(dirname "$0")/env.sh"
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF &&
  cmake --build build-gpu --parallel "$(nproc)"; } >"$out/build.log" 2>&1 ||
  { grep -E "error" -A3 "$out/build.log" | head -30; exit 1; }
exe=build-gpu/bin/stencilscope
stalls=""
for r in long_scoreboard short_scoreboard barrier lg_throttle mio_throttle wait math_pipe_throttle not_selected \
         selected dispatch_stall no_instruction imc_miss branch_resolving drain membar; do
  stalls+="smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio,"
done
{
  for rows in 8 12 16 24 48; do
    echo "== heat2d stream, strips of $rows rows"
    STENCILSCOPE_STREAM_ROWS=$rows $exe bench heat2d --size 8192 --order 8 --device gpu --variant stream --repeat 10 |
      grep -E "gpu |copy kernel"
  done
  echo "== ncu heat2d stream (stall reasons per issued instruction, DRAM bytes of one step)"
  ncu --kernel-name regex:heat2d_step_stream --launch-count 1 \
      --metrics "${stalls}dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,gpu__time_duration.sum" \
      $exe bench heat2d --size 8192 --order 8 --device gpu --variant stream --repeat 1 --steps 2 2>&1 |
    grep -E "smsp__|dram__|gpu__"
  echo "== ncu heat3d stream25d (DRAM bytes of one step; the field is 2 x 537 MB)"
  ncu --kernel-name regex:stream25d --launch-count 1 --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
      $exe bench heat3d --size 512 --order 8 --device gpu --variant stream25d --repeat 1 --steps 2 2>&1 | grep -E "dram__|gpu__"
} 2>&1 | tee "$out/tune.txt"
