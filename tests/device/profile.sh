#!/usr/bin/env bash
# On the GPU machine after gpu-check.sh has built build-gpu: Nsight Compute on one
# kernel family (speed of light, memory, warp stalls, occupancy), a short summary
# printed, the whole report in $OUT/ncu-<model>.txt.
#   tests/device/profile.sh MODEL KERNEL-REGEX [bench options...]
#   e.g. tests/device/profile.sh heat2d 'heat2d_step_(shared|stream)' --size 8192 --steps 2
#        tests/device/profile.sh heat3d 'stream25d' --size 512 --steps 2 --variant stream25d
set -uo pipefail
source "$(dirname "$0")/env.sh"
model=${1:?model}
kernels=${2:?kernel regex}
shift 2
ncu --kernel-name "regex:${kernels}" --launch-count 3 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
    --section SchedulerStats build-gpu/bin/stencilscope bench "$model" --repeat 1 --device gpu "$@" >"$out/ncu-$model.txt" 2>&1
grep -E "^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Block Limit|Mem Busy|Max Bandwidth|Compute \(SM\) Throughput|Issued Warp|No Eligible|Dynamic Shared" \
  "$out/ncu-$model.txt" | head -80
