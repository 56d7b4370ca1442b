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
# a line per check, exit non-zero on any failure. BUILD: the build folder (build-gpu-mpi).
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-mpi}
build_no_gui $b stencilscope test_gpu_boxes_mpi test_gpu_simulation_mpi test_hydro3d_gpu || exit 1
echo "built $(grep -c '^\[' "$out/build.log") steps"
e=$b/bin/stencilscope
gpus=$(nvidia-smi -L | wc -l)
np=$((gpus >= 4 ? 4 : 2))
status=0
regex="mpi_gpu_boxes_np(2_peer|3_peer|4_peer|4_nccl)${TESTS:+|$TESTS}"
timeout 300 ctest --test-dir $b -R "$regex" --output-on-failure >"$out/ctest.log" 2>&1 || status=1
grep -E "Test +#|tests passed|SKIPPED|Failure" "$out/ctest.log" | head -30
timeout 120 $b/bin/test_hydro3d_gpu --gtest_filter='Hydro3DGpuBox.*' >"$out/hydro-box.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/hydro-box.log"
mpi=(mpirun --allow-run-as-root --oversubscribe -q --mca btl self,vader -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS=2)
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
exit $status
