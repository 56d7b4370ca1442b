#!/usr/bin/env bash
# A change to heat3d's kernels against the tree before it, in one device call: the working
# tree is built as it is (build-gpu-nogui: stencilscope, test_heat3d_gpu, the GPU box test)
# and, in parallel, a copy of it with the files under ab-old/ (the same paths, the old
# contents; an untracked folder that the device call carries) laid over it. ab-old/ must
# hold every file the change touched that the old files do not compile against (session 23
# lost a call to an overlay of two headers whose launcher had moved on). Then
#  1. ab-trees.sh: the new and the old build alternately (AB_CASES, AB_ROUNDS);
#  2. test_heat3d_gpu and, with BOXES=1, the GPU boxes of two and three ranks on this GPU;
#  3. with TOOLS (e.g. "memcheck racecheck"), sanitize.sh on heat3d's stream25d.
#   tests/device/ab-overlay.sh          logs in $OUT (or ./out)
set -uo pipefail
source "$(dirname "$0")/env.sh"
[[ -d ab-old ]] || { echo "ab-overlay: no ab-old/ folder"; exit 1; }
t0=$SECONDS
old=/tmp/ab-old-tree
rm -rf "$old" && mkdir -p "$old"
tar --exclude='./build*' --exclude=./out --exclude=./.devdeps --exclude=./ab-old -cf - . | tar -C "$old" -xf -
cp -r ab-old/. "$old/"
targets=(stencilscope test_heat3d_gpu)
[[ ${BOXES:-0} == 1 ]] && targets+=(test_gpu_boxes_mpi)
( build_no_gui build-gpu-nogui "${targets[@]}" ) & p1=$!
( cmake -S "$old" -B "$old/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg-old.log" 2>&1 &&
  cmake --build "$old/build" --target stencilscope --parallel 8 >"$out/build-old.log" 2>&1 ) & p2=$!
wait $p1 || { echo "ab-overlay: the new tree did not build"; exit 1; }
wait $p2 || { echo "ab-overlay: the old tree did not build"; grep -m5 error "$out/build-old.log"; exit 1; }
echo "== both built, $((SECONDS - t0)) s"
status=0
tests/device/ab-trees.sh build-gpu-nogui/bin/stencilscope "$old" || status=1
timeout 240 build-gpu-nogui/bin/test_heat3d_gpu >"$out/test-heat3d.log" 2>&1 || status=1
echo "test_heat3d_gpu: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/test-heat3d.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$out/test-heat3d.log" | head -5
if [[ ${BOXES:-0} == 1 ]]; then
  timeout 200 ctest --test-dir build-gpu-nogui -R 'mpi_gpu_boxes_np(2|3)_peer' --output-on-failure >"$out/ctest-boxes.log" 2>&1 || status=1
  grep -E "Test +#|tests passed|SKIPPED" "$out/ctest-boxes.log" | head -6
fi
if [[ -n ${TOOLS:-} ]]; then
  # shellcheck disable=SC2086
  OUT=$out/san SANITIZE_MODELS=heat3d SANITIZE_VARIANTS=stream25d SANITIZE_JOBS=${SANITIZE_JOBS:-12} \
    timeout "${SANITIZE_LIMIT:-150}" tests/device/sanitize.sh build-gpu-nogui $TOOLS >"$out/sanitize.txt" 2>&1 || status=1
  grep -vE '^clean' "$out/sanitize.txt" | tail -8
fi
echo "ab-overlay: $((SECONDS - t0)) s"
exit $status
