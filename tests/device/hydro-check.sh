#!/usr/bin/env bash
# hydro3d on a machine with an NVIDIA GPU: build (CUDA, headless GUI), the hydro3d
# tests (GPU and CPU) and the shared suite for it, the benchmark at 256^3 in float and
# double and at 128^3 in float (the paper's size), and compute-sanitizer over the GPU
# tests. Logs and JSON go to $OUT (or ./out). HYDRO_SKIP_SANITIZE=1 leaves it out.
set -uo pipefail
source "$(dirname "$0")/env.sh"
build=${BUILD:-build-gpu}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
    >"$out/configure-hydro.log" 2>&1 || { tail -30 "$out/configure-hydro.log"; exit 1; }
fi
cmake --build $build --parallel "$(nproc)" >"$out/build-hydro.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build-hydro.log" | head -60; exit 1; }
exe=$build/bin/stencilscope
status=0
ctest --test-dir $build -R 'Hydro3D|hydro3d' --output-on-failure -j4 >"$out/ctest-hydro.log" 2>&1 || status=1
grep -E "tests passed|\(Failed\)|Skipped\)" "$out/ctest-hydro.log" | tail -12
$build/bin/test_hydro3d_gpu 2>&1 | grep -E "rel L2|OK|FAILED" | head -40
bench() { local name=$1; shift; echo "== bench hydro3d $*"
  $exe bench hydro3d "$@" --json "$out/$name.json" 2>&1 | tee "$out/$name.txt" || status=1; }
bench hydro-256-f32 --size 256 --device gpu --steps 5 --repeat 5
bench hydro-128-f32 --size 128 --device gpu --steps 10 --repeat 5
bench hydro-256-f64 --size 256 --device gpu --steps 3 --repeat 3 --precision double
if [[ -z ${HYDRO_SKIP_SANITIZE:-} ]]; then
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $build/bin/test_hydro3d_gpu \
      --gtest_filter='*FloatVariants*:*Forcing*:*Kick*' >"$out/sanitize-hydro-$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $? ($(grep -cE '^========= (Invalid|Race|Barrier|Uninitialized|Error)' "$out/sanitize-hydro-$tool.log") reports)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitize-hydro-$tool.log" | tail -1
  done
fi
exit $status
