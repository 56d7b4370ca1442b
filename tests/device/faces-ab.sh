#!/usr/bin/env bash
# heat3d stream25d under the analytic rule with each writer of the next step's face ghosts
# (STENCILSCOPE_FACES=auto|producers|kernel, Heat3DFaceWriters), in one device call:
#  1. builds stencilscope and test_heat3d_gpu ($BUILD, default build-gpu-nogui);
#  2. TESTS=1 (default): test_heat3d_gpu whole (the default writers), its analytic tests with
#     each other writer, and whole with each stream25d form forced;
#  3. 512^3 and 256^3, order 8, float, 20 steps, best of 3: each writer, ROUNDS runs each
#     (default 2) in the device's form, interleaved; 256^3 once in each form forced; 512^3
#     periodic once as a control (its kernel has no face writers).
#  4. NCU=1: Nsight Compute's duration of each kernel of 256^3 steps (face kernel in each form,
#     producers, periodic);
#  5. FACE_KERNEL=1: the face kernel's forms (STENCILSCOPE_FACE_KERNEL=staged|walk) at 256^3
#     (auto) and 512^3 (faces=kernel), ROUNDS runs each, before the rows of 3 (WRITERS=0
#     leaves those out).
# Logs in $OUT/faces; the table last.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
log=$out/faces
mkdir -p "$log"
t0=$SECONDS
build_no_gui "$b" stencilscope test_heat3d_gpu || exit 1
echo "build: $((SECONDS - t0)) s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exe=$b/bin/stencilscope
status=0
sizes=(512 256)
writers_forms=(auto producers kernel)
if [[ ${TESTS:-1} == 1 ]]; then
  gpu_test() {  # name env-assignment [gtest arguments]
    local name=$1 envset=$2
    shift 2
    env $envset timeout 300 "$b/bin/test_heat3d_gpu" "$@" >"$log/test-$name.log" 2>&1 || status=1
    echo "test $name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$log/test-$name.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \] [A-Z]' "$log/test-$name.log" | head -5
  }
  gpu_test default ""
  for w in producers kernel; do gpu_test "faces-$w" "STENCILSCOPE_FACES=$w" --gtest_filter='*analytic*:Heat3DGpuAnalytic.*'; done
  gpu_test "faces-kernel-walk" "STENCILSCOPE_FACES=kernel STENCILSCOPE_FACE_KERNEL=walk" --gtest_filter='*analytic*:Heat3DGpuAnalytic.*'
  for lean in 0 1; do gpu_test "lean$lean" "STENCILSCOPE_STREAM25_LEAN=$lean"; done
  echo "tests: $((SECONDS - t0)) s"
fi
row() {  # label env-assignment bench-arguments...
  local label=$1 envset=$2
  shift 2
  local r
  r=$(env $envset STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 90 "$exe" bench heat3d --variant stream25d --device gpu --order 8 \
    --steps 20 --repeat 3 "$@" 2>&1 | awk '$1 == "stream25d" { print $4 " ms, copy " $7 }')
  [[ -n $r ]] || status=1
  echo "$label: ${r:-failed}" | tee -a "$log/table.txt"
}
if [[ ${FACE_KERNEL:-0} == 1 ]]; then  # the face kernel's two forms, where the face kernel runs every step
  for r in $(seq "${ROUNDS:-2}"); do
    for k in staged walk; do
      row "256 analytic auto, face kernel $k, run $r" "STENCILSCOPE_FACE_KERNEL=$k" --size 256 --boundary analytic
      row "512 analytic faces=kernel, face kernel $k, run $r" "STENCILSCOPE_FACES=kernel STENCILSCOPE_FACE_KERNEL=$k" --size 512 \
        --boundary analytic
    done
  done
fi
[[ ${WRITERS:-1} == 1 ]] || { sizes=(); writers_forms=(); }
for s in "${sizes[@]}"; do
  for r in $(seq "${ROUNDS:-2}"); do
    for w in auto producers kernel; do row "$s analytic faces=$w run $r" "STENCILSCOPE_FACES=$w" --size $s --boundary analytic; done
  done
done
for w in "${writers_forms[@]}"; do
  for lean in 0 1; do
    row "256 analytic faces=$w lean=$lean" "STENCILSCOPE_FACES=$w STENCILSCOPE_STREAM25_LEAN=$lean" --size 256 --boundary analytic
  done
done
row "512 periodic (control)" "" --size 512 --boundary periodic
if [[ ${NCU:-0} == 1 ]]; then  # each kernel's duration in a 256^3 step (steps 3 and 4 of 4)
  for c in "analytic kernel staged" "analytic kernel walk" "analytic producers staged" "periodic auto staged"; do
    set -- $c
    echo "== ncu 256^3 $1, faces=$2, face kernel $3"
    STENCILSCOPE_FACES=$2 STENCILSCOPE_FACE_KERNEL=$3 STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 120 ncu --kernel-name regex:'heat3d_(step_stream25d|face_ghosts)' \
      --launch-skip 4 --launch-count 4 --metrics gpu__time_duration.sum "$exe" bench heat3d --variant stream25d --device gpu \
      --size 256 --order 8 --steps 6 --repeat 1 --boundary "$1" 2>&1 | grep -E "heat3d_|gpu__time_duration" | sed -E 's/ +/ /g; s/\(.*//'
  done
fi
echo "total: $((SECONDS - t0)) s"
exit $status
