#!/usr/bin/env bash
# The seismic models' GPU code on one GPU machine, in one device call: build (no GUI),
# every gpu-labelled test (the source lists, receiver layouts and CPML kernels of
# acoustic3d and elastic3d landed without a device and are first run here), the
# compute-sanitizer check of both models (every boundary word, CPML included) and of the
# multi-source test, and the issue's benchmark rows at 512^3 order 8 float (sponge and
# cpml). Logs and JSON in $OUT (or ./out); a short table last.
#   tests/device/wave-check.sh [quick]     quick: 256^3 benchmarks, memcheck only
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
e=$b/bin/stencilscope
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
ctest --test-dir $b -L gpu -j4 --output-on-failure >"$out/ctest-gpu.log" 2>&1 || status=1
grep -E "tests passed|\(Failed\)" "$out/ctest-gpu.log" | head -20
tools="memcheck racecheck synccheck initcheck"
size=512
if [[ ${1:-} == quick ]]; then tools=memcheck; size=256; fi
SANITIZE_MODELS="acoustic3d elastic3d" SANITIZE_JOBS=8 tests/device/sanitize.sh $b $tools >"$out/sanitize.txt" 2>&1 || status=1
grep -vE "^\s*$" "$out/sanitize.txt" | tail -6
for t in $tools; do
  compute-sanitizer --tool "$t" --error-exitcode 9 $b/bin/test_sources_gpu >"$out/sanitize-sources-$t.log" 2>&1
  echo "sanitize test_sources_gpu $t: exit $?"
done
bench() { local name=$1; shift; timeout 300 $e bench "$@" --device gpu --json "$out/$name.json" >"$out/$name.txt" 2>&1 || status=1
  echo "== bench $*"; grep -vE "^\s*$" "$out/$name.txt" | tail -${TAIL:-8}; }
bench acoustic-$size acoustic3d --size $size --order 8 --steps 10 --repeat 3
bench acoustic-$size-cpml acoustic3d --size $size --order 8 --steps 10 --repeat 3 --param boundary=cpml
bench elastic-$size elastic3d --size $size --order 8 --steps 5 --repeat 3
bench elastic-$size-cpml elastic3d --size $size --order 8 --steps 5 --repeat 3 --param boundary=cpml
exit $status
