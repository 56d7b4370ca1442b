#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (and no package registry): build (the GUI part
# builds headless-only where GLFW is missing; if it cannot build at all, the GUI is
# turned off), run the GPU tests and the host tests, then the benchmarks. Logs and
# JSON go to $OUT (or ./out). Carried Debian packages in .devdeps/ are unpacked first.
#   tests/device/gpu-check.sh [quick]     quick: only the float 8192^2 GPU benchmark
set -uo pipefail
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$out/nvidia-smi.txt" 2>&1
build=build-gpu
configure() { cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >"$out/configure.log" 2>&1 &&
  cmake --build $build --parallel "$(nproc)" >"$out/build.log" 2>&1; }
if ! configure -DSTENCILSCOPE_GUI=ON; then
  echo "gpu-check: the GUI part did not build; building without it"; grep -E "error|FAILED|CMake Error" -A5 "$out/configure.log" "$out/build.log" | head -30
  rm -rf $build
  configure -DSTENCILSCOPE_GUI=OFF || { grep -E "error|FAILED" -A5 "$out/configure.log" "$out/build.log" | head -60; exit 1; }
fi
exe=$build/bin/stencilscope
$exe info | tee "$out/info.txt"
status=0
ctest --test-dir $build -L gpu --output-on-failure >"$out/ctest-gpu.log" 2>&1 || status=1
grep -E "tests passed|Failed|Skipped" "$out/ctest-gpu.log" | tail -12
ctest --test-dir $build -LE gpu --output-on-failure >"$out/ctest-host.log" 2>&1 || status=1
grep -E "tests passed" "$out/ctest-host.log"
bench() { local name=$1; shift; echo "== bench $*"; $exe bench heat2d "$@" --json "$out/$name.json" 2>&1 | tee "$out/$name.txt" || status=1; }
bench default
bench f32-8192-o8-gpu --size 8192 --order 8 --repeat 10 --device gpu
if [[ ${1:-} != quick ]]; then
  bench f32-8192-o8 --size 8192 --order 8 --repeat 3
  bench f64-8192-o8 --size 8192 --order 8 --precision double --repeat 5 --device gpu
  bench f32-8192-o2 --size 8192 --order 2 --device gpu --repeat 10
fi
exit $status
