#!/usr/bin/env bash
# The one unexplained sanitize.sh failure of session 22 (docs/sanitizer.md): synccheck on
# acoustic3d stream25d, double, --param top=absorbing faults ("unspecified launch failure")
# after 1536 "Missing wait" reports, while seven sibling cases end with 1112-1336 reports
# and no fault. Is it a limit of the tool on one launch's reports, or the kernel?
# Runs the case on grids with fewer and more blocks, with the report print limit at 0 and
# at 200, and the float and default-top siblings on the same grids; one line per run:
# exit status, report count, whether the kernel faulted. Needs a built stencilscope.
#   tests/device/synccheck-probe.sh [BUILD_DIR]
# Run it after the window's GPU tests, or on a machine of its own: a fault under a
# sanitizer has left that machine's OpenGL drawing wrong pixels (docs/perf.md, session 22).
set -uo pipefail
source "$(dirname "$0")/env.sh"
exe=${1:-build-gpu-nogui}/bin/stencilscope
log=$out/synccheck-probe
mkdir -p "$log"
probe() {  # name size precision top print-limit
  local name=$1 size=$2 prec=$3 top=$4 limit=$5
  timeout 120 compute-sanitizer --tool synccheck --error-exitcode 9 --print-limit "$limit" "$exe" bench acoustic3d \
    --variant stream25d --device gpu --size "$size" --order 8 --steps 2 --repeat 1 --precision "$prec" \
    --param top="$top" >"$log/$name.txt" 2>&1
  local rc=$?
  local n fault
  n=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log/$name.txt" | head -1)
  fault=$(grep -c "unspecified launch failure" "$log/$name.txt")
  printf "%-34s exit %3s  reports %6s  fault lines %s  last: %s\n" "$name" "$rc" "${n:-?}" "$fault" \
    "$(grep -vE '^=========  +' "$log/$name.txt" | tail -1 | cut -c1-110)"
}
# The cases run PROBE_JOBS at a time (default 8); their lines are printed in order at the end.
jobs=${PROBE_JOBS:-8}
cases=()
for size in 29x23x19 45x37x29 61x53x41; do
  for prec in double float; do
    for top in absorbing free; do
      cases+=("$size-$prec-$top-limit200 $size $prec $top 200")
    done
  done
  cases+=("$size-double-absorbing-limit0 $size double absorbing 0")
done
i=0
for c in "${cases[@]}"; do
  # shellcheck disable=SC2086
  probe $c >"$log/line-$(printf %02d $i).txt" &
  i=$((i + 1))
  (( i % jobs == 0 )) && wait
done
wait
cat "$log"/line-*.txt
