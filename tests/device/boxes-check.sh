#!/usr/bin/env bash
# The GPU boxes after a change to their kernels or their overlap, in one device call of
# about five minutes on a machine of several GPUs (nvidia-h200-x4; on fewer GPUs ranks share
# one and the NCCL cases skip and say so): build stencilscope and the box tests (CUDA,
# MPI, NCCL, no GUI), then
#  - the box tests bitwise against one GPU: mpi_gpu_boxes_np2_peer, _np3_peer (two ranks on
#    one GPU), _np4_peer, _np4_nccl, and TESTS (a ctest regex, default none more);
#  - hydro3d's GPU box as the CPU box, call for call (test_hydro3d_gpu Hydro3DGpuBox.*);
#  - compute-sanitizer memcheck on every rank of `mpirun -np NP bench MODEL --device gpu`
#    (NP: 4 where there are four GPUs, else 2) at sizes no tile divides: heat3d (stream25d,
#    analytic and insulated), hydro3d (its box variant, global; 55pt is in Hydro3DGpuBox),
#    acoustic3d and elastic3d;
#  - BOX_TOOLS (e.g. "racecheck synccheck initcheck"): those tools on every rank of heat3d's
#    box (stream25d, analytic and insulated, BOX_TRANSPORTS (default peer); STENCILSCOPE_STREAM25_LEAN=1 and
#    =0: both kernel forms), a report accepted only where tests/device/sanitizer-known.txt
#    lists it for heat3d stream25d (BOX_LEAN="1" for the lean form alone); BOX_ONLY=1 runs
#    only these (no box tests, no memcheck);
# a line per check, exit non-zero on any failure. BUILD: the build folder (build-gpu-mpi).
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-mpi}
targets=(stencilscope test_gpu_boxes_mpi test_gpu_simulation_mpi test_hydro3d_gpu)
[[ ${BOX_ONLY:-0} == 1 ]] && targets=(stencilscope)
build_no_gui $b "${targets[@]}" || exit 1
echo "built $(grep -c '^\[' "$out/build.log") steps"
e=$b/bin/stencilscope
gpus=$(nvidia-smi -L | wc -l)
np=$((gpus >= 4 ? 4 : 2))
status=0
mpi=(mpirun --allow-run-as-root --oversubscribe -q --mca btl self,vader -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS=2)
if [[ ${BOX_ONLY:-0} != 1 ]]; then
regex="mpi_gpu_boxes_np(2_peer|3_peer|4_peer|4_nccl)${TESTS:+|$TESTS}"
timeout 300 ctest --test-dir $b -R "$regex" --output-on-failure >"$out/ctest.log" 2>&1 || status=1
grep -E "Test +#|tests passed|SKIPPED|Failure" "$out/ctest.log" | head -30
timeout 120 $b/bin/test_hydro3d_gpu --gtest_filter='Hydro3DGpuBox.*' >"$out/hydro-box.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/hydro-box.log"
san() {  # name, then the bench arguments
  local name=$1; shift
  local start=$SECONDS
  timeout 150 "${mpi[@]}" -np $np compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
    $e bench "$@" --device gpu --steps 2 --repeat 1 >"$out/san-$name.log" 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  echo "memcheck np $np $name: exit $rc, $(grep -c 'ERROR SUMMARY: 0 errors' "$out/san-$name.log") of $np ranks with 0 errors, $((SECONDS - start)) s"
}
san heat3d-analytic heat3d --size 45x37x29 --order 8
san heat3d-insulated heat3d --size 45x37x29 --order 4 --boundary insulated
san hydro3d hydro3d --size 24x20x18
san acoustic3d acoustic3d --size 29x23x19
san elastic3d elastic3d --size 29x23x19
fi
# box_tool TOOL LEAN NAME bench-arguments: TOOL on every rank; the report lines not in the known list.
box_tool() {
  local tool=$1 lean=$2 name=$3; shift 3
  local start=$SECONDS flags=(--tool "$tool" --error-exitcode 9 --print-limit 100)
  [[ $tool == racecheck ]] && flags+=(--racecheck-report all)
  # BOX_KERNEL_FILTER: check only the kernels whose mangled name holds it (e.g. Lb1ELb1EEEv: the
  # box's lean stream25d; synccheck stops a kernel at its first report, and the one-rank run of the
  # same command comes first).
  [[ -n ${BOX_KERNEL_FILTER:-} ]] && flags+=(--kernel-name "kns=$BOX_KERNEL_FILTER")
  STENCILSCOPE_STREAM25_LEAN=$lean timeout 200 "${mpi[@]}" -x STENCILSCOPE_STREAM25_LEAN -np $np compute-sanitizer \
    "${flags[@]}" $e bench "$@" --device gpu --variant stream25d --steps 2 --repeat 1 >"$out/box-$tool-$name.log" 2>&1
  local rc=$? unexplained
  # Each report with the function it names ("REPORT | at FUNCTION"), matched against the list
  # under the variant "stream25d" (the kernel's own reports) or "box-TRANSPORT" (the exchange's).
  local trn=${name##*-}
  # Every "========= Capitalised" line is a report except the tool's banners and summaries; its
  # first detail line ("at FUNCTION", or what a host API call touched) goes with it.
  unexplained=$(awk '/^========= (COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|Target application)/ { next }
                     /^========= [A-Z]/ { if (r != "") print r; r = $0; next }
                     r != "" && /^=========     [A-Za-z]/ { print r " | " $0; r = "" }
                     END { if (r != "") print r }' "$out/box-$tool-$name.log" |
    while read -r line; do
      explained=0
      while IFS=$'\t' read -r ktool kmodel kvariant kpattern kdoc; do
        [[ -z $ktool || $ktool == \#* ]] && continue
        if [[ $ktool == "$tool" && $kmodel == heat3d && ($kvariant == stream25d || $kvariant == "box-$trn") ]] &&
           grep -qE "$kpattern" <<<"$line"; then
          explained=1; break
        fi
      done <tests/device/sanitizer-known.txt
      [[ $explained == 0 ]] && echo "$line"
    done | sort | uniq -c | head -3)
  local verdict=clean
  # mpirun returns 1 when a rank ends non-zero: the tool's own 9 is seen in its summaries.
  if ((rc != 0)) && grep -qE "(ERROR|RACECHECK) SUMMARY: [1-9]" "$out/box-$tool-$name.log"; then rc=9; fi
  if ((rc == 9)); then [[ -z $unexplained ]] && verdict=known || verdict=REPORTED; elif ((rc != 0)); then verdict=FAILED; fi
  [[ $verdict == clean || $verdict == known ]] || status=1
  [[ $verdict == FAILED ]] && unexplained=$(grep -v "^=========     " "$out/box-$tool-$name.log" | tail -4)
  echo "$tool np $np $name lean=$lean: $verdict (exit $rc, $(grep -c 'SUMMARY: 0 ' "$out/box-$tool-$name.log") of $np ranks report 0), $((SECONDS - start)) s${unexplained:+; $(tr '\n' ' ' <<<"$unexplained")}"
}
for tool in ${BOX_TOOLS:-}; do  # distributed runs step in float only
  for lean in ${BOX_LEAN:-1 0}; do
    for tr in ${BOX_TRANSPORTS:-peer}; do
      box_tool "$tool" $lean "heat3d-analytic${BOX_KERNEL_FILTER:+-$BOX_KERNEL_FILTER}-$tr" heat3d --size 45x37x29 --order 8 --transport $tr
      box_tool "$tool" $lean "heat3d-insulated${BOX_KERNEL_FILTER:+-$BOX_KERNEL_FILTER}-$tr" heat3d --size 45x37x29 --order 8 --boundary insulated --transport $tr
    done
  done
done
exit $status
