#!/usr/bin/env bash
# heat3d stream25d at 512^3 (order 8, float) across commits: builds `stencilscope` (GUI
# off) in each source tree given (e.g. `git archive COMMIT` unpacked under build-ab/,
# carried to the device), in parallel, then benches every build in turn, two rounds, so
# that drift hits all alike. One line per run: tree, rule, copy ratio.
#   tests/device/ab-trees.sh EXE TREE...     logs in $OUT/ab (or ./out/ab); EXE "-": none
# AB_CASES: SIZE:RULE words (default "512:analytic 512:periodic"); AB_ROUNDS (default 2).
set -uo pipefail
source "$(dirname "$0")/env.sh"
log=$out/ab
mkdir -p "$log"
this=$1; shift
t0=$SECONDS
jobs=$(( $(nproc) / ($# + 1) )); (( jobs < 2 )) && jobs=2
pids=()
for tree in "$@"; do
  ( cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90-real >"$log/cfg-$(basename "$tree").log" 2>&1 &&
    cmake --build "$tree/build" --target stencilscope --parallel "$jobs" >"$log/build-$(basename "$tree").log" 2>&1 ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "== built, $((SECONDS - t0)) s"
exes=()
[[ $this == - ]] || exes+=("$this")
for tree in "$@"; do
  if [[ -x $tree/build/bin/stencilscope ]]; then exes+=("$tree/build/bin/stencilscope")
  else echo "$tree: no build: $(grep -m3 -E 'error' "$log/build-$(basename "$tree").log")"; fi
done
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
  for c in ${AB_CASES:-512:analytic 512:periodic}; do
    size=${c%%:*} rule=${c#*:}
    for exe in "${exes[@]}"; do
      f="$log/bench-$(echo "$exe" | tr '/' '_')-$size-$rule-$round.txt"
      STENCILSCOPE_BENCH_NO_REFERENCE=1 $exe bench heat3d --variant stream25d --device gpu --size "$size" --order 8 --steps 20 \
        --repeat 3 --precision float --param boundary=$rule >"$f" 2>&1
      echo "round $round $size $rule $exe: $(awk '$1 == "stream25d" { print $4 " ms, copy " $7 }' "$f" | head -1)"
    done
  done
done
grep -h -m1 "copy kernel" "$log"/bench-*-1.txt | head -1
echo "ab-trees: $((SECONDS - t0)) s"
