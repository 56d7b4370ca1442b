#!/usr/bin/env bash
# elastic3d's fastest variant, this tree against a base tree, in one device call: builds
# stencilscope and test_elastic3d_gpu here (build-gpu-nogui) and stencilscope in the base
# tree (build-ab/base.tar, made with `git archive --prefix=base/ REV -o build-ab/base.tar`
# and carried with the call) side by side; benches register25d and steps at 512^3 (order 8,
# float, 5 steps from rest with the source on, best of 3) with each build in turns
# (AB_ROUNDS, default 2); counts the instructions a node costs in each (Nsight Compute,
# smsp__inst_executed over one step at 256^3); runs the GPU tests of this tree and, with
# TOOLS (e.g. "memcheck racecheck synccheck initcheck"), compute-sanitizer on its
# register25d. Without build-ab/base.tar, this tree alone. Logs in $OUT.
#   git archive --prefix=base/ HEAD -o build-ab/base.tar
#   AB_ROUNDS=2 TOOLS="memcheck racecheck" tests/device/elastic-ab.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
t0=$SECONDS
status=0
base_pid=
if [[ -f build-ab/base.tar ]]; then
  rm -rf build-ab/base && tar -xf build-ab/base.tar -C build-ab
  half=$(($(nproc) / 2))
  ( cmake -S build-ab/base -B build-ab/base/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg-base.log" 2>&1 &&
    cmake --build build-ab/base/build --target stencilscope --parallel "$half" >"$out/build-base.log" 2>&1 ) &
  base_pid=$!
fi
build_no_gui build-gpu-nogui stencilscope test_elastic3d_gpu || status=1
[[ -z $base_pid ]] || wait "$base_pid" || { echo "base build failed:"; grep -E "error" -m5 "$out/build-base.log"; }
echo "== built, $((SECONDS - t0)) s"
nvidia-smi --query-gpu=name --format=csv,noheader
declare -A exe=([base]=build-ab/base/build/bin/stencilscope [this]=build-gpu-nogui/bin/stencilscope)
export STENCILSCOPE_BENCH_NO_REFERENCE=1
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
  for t in base this; do
    [[ -x ${exe[$t]} ]] || continue
    f=$out/bench-$t-$round.txt
    timeout 120 "${exe[$t]}" bench elastic3d --size 512 --order 8 --steps 5 --repeat 3 --device gpu \
      >"$f" 2>&1 || { status=1; echo "bench $t exit: $(tail -2 "$f" | tr '\n' ' ')"; }
    echo "round $round $t: $(awk '$1 == "steps" || $1 == "register25d" { printf "%s %s ms copy %s; ", $1, $4, $7 }' "$f")"
  done
done
if command -v ncu >/dev/null; then
  for t in base this; do
    [[ -x ${exe[$t]} ]] || continue
    timeout 120 ncu --kernel-name regex:elastic3d_register25d --launch-count 1 \
      --metrics smsp__inst_executed.sum,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
      "${exe[$t]}" bench elastic3d --size 256 --order 8 --steps 1 --repeat 1 --variant register25d >"$out/ncu-$t.txt" 2>&1
    inst=$(awk '/smsp__inst_executed.sum/ { gsub(",", "", $NF); print $NF }' "$out/ncu-$t.txt")
    echo "ncu $t: $(grep -E "inst_executed|cycles_active|issue_active|time_duration" "$out/ncu-$t.txt" | awk '{print $1, $(NF-1), $NF}' | tr '\n' ';')" \
      "warp instructions per node: $(python3 -c "print(round(${inst:-0} / 256**3, 2))") (x32 per thread-node)"
  done
fi
timeout 300 build-gpu-nogui/bin/test_elastic3d_gpu >"$out/test_elastic3d_gpu.log" 2>&1 || status=1
echo "test_elastic3d_gpu: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/test_elastic3d_gpu.log" | tr '\n' ' ')"
grep -E '^\[  FAILED  \] [A-Z]' "$out/test_elastic3d_gpu.log" | head -5
if [[ -n ${TOOLS:-} ]]; then
  # shellcheck disable=SC2086
  OUT=$out/san SANITIZE_MODELS=elastic3d SANITIZE_VARIANTS=register25d SANITIZE_JOBS=12 \
    timeout "${SANITIZE_LIMIT:-200}" tests/device/sanitize.sh build-gpu-nogui $TOOLS >"$out/sanitize.txt" 2>&1 || status=1
  echo "sanitize: $(grep -c '^clean' "$out/sanitize.txt") clean; the rest:"
  grep -vE '^clean' "$out/sanitize.txt" | tail -6
fi
echo "elastic-ab: $((SECONDS - t0)) s"
exit $status
