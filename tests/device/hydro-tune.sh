#!/usr/bin/env bash
# hydro3d tuning round on the GPU machine: build (no GUI), the GPU tests, the float
# bench at 256^3 with both stream25d tiles, the double bench, Nsight Compute on the
# global and stream25d kernels, and compute-sanitizer on the GPU tests.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
exe=$b/bin/stencilscope
ctest --test-dir $b -R 'Hydro3D|hydro3d' -j4 --output-on-failure >"$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Failure" "$out/ctest.log" | head
$exe bench hydro3d --size 256 --device gpu --steps 5 --repeat 5 --json "$out/h256.json" 2>&1 | grep -E "^(global|55pt|19pt|stream|device)"
STENCILSCOPE_HYDRO_TILE=32x16 $exe bench hydro3d --size 256 --variant stream25d --steps 5 --repeat 5 2>&1 | grep -E "^stream" | sed 's/^/32x16 /'
$exe bench hydro3d --size 256 --device gpu --steps 3 --repeat 3 --precision double 2>&1 | grep -E "^(global|stream)"
ncu --kernel-name "regex:hydro_(global|stream25d)" --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
  $exe bench hydro3d --size 256 --steps 1 --repeat 1 --variant global >"$out/ncu-global.txt" 2>&1
ncu --kernel-name "regex:hydro_stream25d" --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section SchedulerStats \
  $exe bench hydro3d --size 256 --steps 1 --repeat 1 --variant stream25d >"$out/ncu-stream.txt" 2>&1
for f in global stream; do echo "== ncu $f"; grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Block Limit (Reg|Shared)|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|L1/TEX Cache Throughput|L2 Cache Throughput|Stall|SM Busy|Executed Ipc" "$out/ncu-$f.txt" | head -30; done
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $b/bin/test_hydro3d_gpu --gtest_filter='*FloatVariants*:*Kick*' \
    >"$out/san-$tool.log" 2>&1; echo "sanitizer $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san-$tool.log" | tail -1)"
done
