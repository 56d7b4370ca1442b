#!/usr/bin/env bash
# Issue 18 item 1, docs/sanitizer.md ("racecheck: the short-distance refill"): heat3d
# stream25d as shipped (lane 0 of each warp arrives on a slot's `empty` after __syncwarp)
# against the same kernel built with STENCILSCOPE_STREAM25_EMPTY_PER_THREAD (every thread
# arrives after its own reads). For each build: racecheck on the odd grid (float and double,
# analytic and periodic), the heat3d GPU tests, and the benchmark at 512^3 and 256^3 (order 8,
# float), the builds' runs alternating so that both see the same GPU. Run at 46e44ff (session
# 19, docs/sanitizer.md); since b607323 every thread arrives and the macro is gone, so both
# builds are the same kernel: check out 46e44ff to repeat the comparison.
#   tests/device/empty-arrivals.sh        logs in $OUT/arrivals (or ./out/arrivals)
set -uo pipefail
source "$(dirname "$0")/env.sh"
log=$out/arrivals
mkdir -p "$log"
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
half=$(( $(nproc) / 2 ))
build() {  # DIR [CUDA flags]
  [[ -f $1/build.ninja ]] || cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90-real ${2:+-DCMAKE_CUDA_FLAGS=$2} >"$log/cfg-$1.log" 2>&1 || return 1
  cmake --build "$1" --target stencilscope test_heat3d_gpu --parallel "$half" >"$log/build-$1.log" 2>&1
}
build build-lane0 & p1=$!
build build-perthread -DSTENCILSCOPE_STREAM25_EMPTY_PER_THREAD & p2=$!
wait $p1 || { echo "build-lane0 failed"; tail -20 "$log/build-build-lane0.log"; exit 1; }
wait $p2 || { echo "build-perthread failed"; tail -20 "$log/build-build-perthread.log"; exit 1; }
echo "== built, $((SECONDS - t0)) s"
status=0
for b in build-lane0 build-perthread; do
  timeout 300 $b/bin/test_heat3d_gpu >"$log/tests-$b.log" 2>&1 || status=1
  echo "$b test_heat3d_gpu: $(grep -E '^\[  (PASSED|FAILED)  \]' "$log/tests-$b.log" | tr '\n' ' ')"
done
race() {  # BUILD PRECISION RULE
  local f="$log/racecheck-$1-$2-$3.log"
  compute-sanitizer --tool racecheck --racecheck-report all --print-limit 10 \
    $1/bin/stencilscope bench heat3d --variant stream25d --device gpu --size 45x37x29 --order 8 --steps 2 --repeat 1 \
    --precision $2 --param boundary=$3 >"$f" 2>&1
  echo "racecheck $1 $2 $3: $(grep -oE 'RACECHECK SUMMARY: .*' "$f")"
}
for b in build-lane0 build-perthread; do
  for prec in float double; do
    for rule in analytic periodic; do race $b $prec $rule >"$log/race-$b-$prec-$rule.txt" & done
  done
done
wait
cat "$log"/race-*.txt
echo "== racecheck done, $((SECONDS - t0)) s"
# Benchmarks: stream25d row's copy ratio, alternating builds.
bench() {  # BUILD SIZE RULE
  $1/bin/stencilscope bench heat3d --variant stream25d --device gpu --size $2 --order 8 --steps 20 --repeat 3 \
    --precision float --param boundary=$3 >"$log/bench-$1-$2-$3-$4.txt" 2>&1
  awk '/copy/ && /ratio|kernel/ {next} $1 == "stream25d" { print $0 }' "$log/bench-$1-$2-$3-$4.txt" | head -1
}
for round in 1 2; do
  for size in 512 256; do
    for rule in analytic periodic; do
      for b in build-lane0 build-perthread; do
        echo "round $round $b $size^3 $rule: $(bench $b $size $rule $round)"
      done
    done
  done
done
grep -m3 -iE "copy" "$log"/bench-build-lane0-512-analytic-1.txt
echo "empty-arrivals: $((SECONDS - t0)) s"
exit $status
