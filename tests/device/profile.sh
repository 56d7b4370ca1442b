#!/usr/bin/env bash
# On the GPU machine after gpu-check.sh has built build-gpu: Nsight Compute on the
# heat 2D kernels at 8192^2 (speed of light, memory, warp stalls, occupancy).
#   tests/device/profile.sh [variant-regex] [size]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$PWD/out}
variants=${1:-shared|stream}
size=${2:-8192}
ncu --kernel-name "regex:heat2d_step_(${variants})" --launch-count 4 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
    build-gpu/bin/stencilscope bench heat2d --size "$size" --steps 2 --repeat 1 --device gpu >"$out/ncu.txt" 2>&1
grep -E "heat2d_step|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Stall|Block Limit|Mem Busy|Max Bandwidth|Compute \(SM\) Throughput|Issued Ipc" "$out/ncu.txt" | head -120
