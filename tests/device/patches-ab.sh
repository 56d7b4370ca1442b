#!/usr/bin/env bash
# Several kernel changes kept as patches, each alone and all together, against the tree
# as it is, in one device call. Trees under /tmp/pab: `base` (the tree as carried) and one
# per patch; the working tree itself gets every patch applied and is built as
# build-gpu-nogui (stencilscope, test_heat3d_gpu). All builds run at once; then
# ab-trees.sh benches them in turns (AB_CASES, AB_ROUNDS), test_heat3d_gpu runs on the
# combined build and, with TOOLS, sanitize.sh on its stream25d.
#   AB_CASES="512:analytic 512:insulated" tests/device/patches-ab.sh PATCH...
# PAB_COMBINED=PATCH: the combined tree from this patch (where the others conflict).
# Never run it in a checkout you keep: it applies the patches to the working tree.
set -uo pipefail
source "$(dirname "$0")/env.sh"
(($#)) || { echo "usage: patches-ab.sh PATCH..."; exit 1; }
t0=$SECONDS
root=/tmp/pab
rm -rf "$root" && mkdir -p "$root/base"
tar --exclude='./build*' --exclude=./out --exclude=./.devdeps --exclude=./ab-old -cf - . | tar -C "$root/base" -xf -
apply() { (cd "$1" && if command -v patch >/dev/null; then patch -p1 --forward >/dev/null; else git apply -; fi) <"$2"; }
trees=("$root/base")
for p in "$@"; do
  name=$(basename "$p" .patch)
  cp -a "$root/base" "$root/$name"
  apply "$root/$name" "$p" || { echo "patches-ab: $p does not apply alone"; exit 1; }
  trees+=("$root/$name")
done
if [[ -n ${PAB_COMBINED:-} ]]; then apply . "$PAB_COMBINED" || { echo "patches-ab: $PAB_COMBINED does not apply"; exit 1; }
else for p in "$@"; do apply . "$p" || { echo "patches-ab: $p does not apply on top of the others"; exit 1; }; done; fi
echo "patches-ab: ${#trees[@]} trees and the combined working tree"
jobs=$(( $(nproc) / (${#trees[@]} + 1) )); (( jobs < 2 )) && jobs=2
pids=()
( build_no_gui build-gpu-nogui stencilscope test_heat3d_gpu ) & pids+=($!)
for tree in "${trees[@]}"; do
  ( cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg-$(basename "$tree").log" 2>&1 &&
    cmake --build "$tree/build" --target stencilscope --parallel "$jobs" >"$out/build-$(basename "$tree").log" 2>&1 ) ||
    { echo "patches-ab: $(basename "$tree") did not build"; grep -m5 error "$out/build-$(basename "$tree").log"; } &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
[[ -x build-gpu-nogui/bin/stencilscope ]] || { echo "patches-ab: the combined tree did not build"; exit 1; }
echo "== all built, $((SECONDS - t0)) s"
status=0
tests/device/ab-trees.sh build-gpu-nogui/bin/stencilscope "${trees[@]}" || status=1
timeout 240 build-gpu-nogui/bin/test_heat3d_gpu >"$out/test-heat3d.log" 2>&1 || status=1
echo "test_heat3d_gpu (combined): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/test-heat3d.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$out/test-heat3d.log" | head -5
if [[ -n ${TOOLS:-} ]]; then
  # shellcheck disable=SC2086
  OUT=$out/san SANITIZE_MODELS=heat3d SANITIZE_VARIANTS=stream25d SANITIZE_JOBS=${SANITIZE_JOBS:-12} \
    timeout "${SANITIZE_LIMIT:-150}" tests/device/sanitize.sh build-gpu-nogui $TOOLS >"$out/sanitize.txt" 2>&1 || status=1
  echo "sanitize: $(grep -c '^clean' "$out/sanitize.txt") clean; the rest:"
  grep -vE '^clean' "$out/sanitize.txt" | tail -10
fi
echo "patches-ab: $((SECONDS - t0)) s"
exit $status
