#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, after tests/device/gpu-check.sh (which builds
# build-gpu): bring build-gpu up to date, run the gpu-labelled 3D tests, then the
# 3D benchmarks of issue 4. Logs and JSON go to $OUT (or ./out).
#   deriv3d 64^3 order 8 float, every variant and axis (the posts' error lines)
#   deriv3d 256^3 and 512^3 order 8 float, GPU variants, per axis
#   heat3d 512^3 order 8 float, GPU variants
set -uo pipefail
source "$(dirname "$0")/env.sh"
build=build-gpu
if [[ ! -f $build/build.ninja ]]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF >"$out/configure-3d.log" 2>&1 ||
    { tail -30 "$out/configure-3d.log"; exit 1; }
fi
cmake --build $build --parallel "$(nproc)" >"$out/build-3d.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build-3d.log" | head -60; exit 1; }
exe=$build/bin/stencilscope
status=0
ctest --test-dir $build -L gpu -R 'Deriv3D|Heat3D' --output-on-failure >"$out/ctest-gpu-3d.log" 2>&1 || status=1
grep -E "tests passed|Failed|Skipped|\(Failed\)" "$out/ctest-gpu-3d.log" | tail -12
ctest --test-dir $build -R 'Grid3D|GhostFaces|Convergence|Deriv3DCpu|Heat3DCpu|CpuVsReference|Cli3D' \
  --output-on-failure >"$out/ctest-host-3d.log" 2>&1 || status=1
grep -E "tests passed" "$out/ctest-host-3d.log"
bench() { local name=$1 model=$2; shift 2; echo "== bench $model $*"
  $exe bench "$model" "$@" --json "$out/$name.json" 2>&1 | tee "$out/$name.txt" || status=1; }
bench deriv3d-64-o8-f32 deriv3d --size 64 --order 8
bench deriv3d-256-o8-f32 deriv3d --size 256 --order 8 --device gpu --repeat 10
bench deriv3d-512-o8-f32 deriv3d --size 512 --order 8 --device gpu --repeat 10
bench heat3d-512-o8-f32 heat3d --size 512 --order 8 --device gpu --steps 10 --repeat 5
exit $status
