#!/usr/bin/env bash
# Distributed runs on the GPUs, in one device call (nvidia-h200-x2 and up; the scaling
# tables on two and more GPUs: tests/device/scaling.sh; on a one-GPU
# machine both ranks share device 0: a smoke test, NCCL cases skip and say why):
# build with CUDA, MPI and NCCL (no GUI), then
#  - the MPI tests: CPU boxes bitwise equal to one rank (mpi_distributed_np2/3/4, which also
#    hold DeviceHaloExchange.StagedPeerAndNcclFillAsTheHostExchange), GPU boxes bitwise equal to
#    one GPU with each halo transport (mpi_gpu_boxes_np2_staged, _np2_nccl, _np2_peer,
#    _np3_staged, _np3_peer, _np4_nccl and _np4_peer where there are four GPUs:
#    rank r on GPU local-rank % GPUs), the window's run on GPU boxes (mpi_gpu_simulation_*),
#    and the command line (CliMpi.*, the GPU table);
#  - the distributed bench tables on the GPUs (--device gpu, the model's box variant on one
#    GPU against N ranks): heat3d weak scaling at 512^3 per rank and strong scaling at
#    768^3, through peer and NCCL (where every rank has its own GPU) and staged; acoustic3d at
#    512^3 (global, sponge and cpml); elastic3d at 256^3, strong (steps, sponge); hydro3d at
#    512^3, strong scaling (global: stream25d, the fastest, reads the whole grid's periodic
#    images inside its kernel); heat3d's one-GPU variants at 512^3 for scale.
# Logs in $OUT (or ./out). About 5 minutes on a warm build (BUILD=dir reuses one); QUICK=1
# leaves out the CPU MPI tests and the staged tables where NCCL runs.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-mpi}
build_no_gui $b || exit 1
e=$b/bin/stencilscope
status=0
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee "$out/devices.txt"
gpus=$(wc -l <"$out/devices.txt")
$e info | tee "$out/info.txt"

# The tests (GPU boxes first: they are what this script is for).
timeout 300 ctest --test-dir $b -R "mpi_gpu_boxes|mpi_gpu_simulation" --output-on-failure >"$out/ctest-gpu-boxes.log" 2>&1 || status=1
grep -E "mpi_gpu_(boxes|simulation).*(Passed|Failed|Skipped|\*\*\*)|tests passed|ranks on|SKIPPED|Failure|against|Expected" \
  "$out/ctest-gpu-boxes.log" | head -40
if [[ -z ${QUICK:-} ]]; then
  timeout 300 ctest --test-dir $b -R "mpi_distributed|CliMpi" -j4 --output-on-failure >"$out/ctest-mpi.log" 2>&1 || status=1
  grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest-mpi.log"
  grep -h "DeviceHaloExchange" -A3 "$out/ctest-mpi.log" | grep -E "OK|FAILED|SKIPPED" | sort | uniq -c
fi

# The tables. NCCL only where every rank has its own GPU; peer (the default) first.
mpi=(timeout 150 mpirun --allow-run-as-root --oversubscribe -q --mca btl self,vader -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS=4)
transports=(peer staged)
if grep -q "NCCL" "$out/info.txt" && ((gpus >= 2)); then transports=(peer nccl staged); fi
table() {  # must (1: a failure fails the script), name, then the bench arguments
  local must=$1 name=$2; shift 2
  echo "== mpirun -np 2 stencilscope bench $*"
  "${mpi[@]}" -np 2 $e bench "$@" >"$out/dist-$name.txt" 2>&1 || ((must == 0)) || status=1
  grep -vE "^\s*$" "$out/dist-$name.txt" | tail -7
}
# QUICK=1: the GPU-box tests, then the tables through the first transport only.
[[ -n ${QUICK:-} ]] && transports=("${transports[0]}")
for t in "${transports[@]}"; do
  table 1 heat3d-weak-$t heat3d --device gpu --transport $t --size 512 --steps 20 --repeat 3 --scaling weak
  table 1 heat3d-strong-$t heat3d --device gpu --transport $t --size 768 --steps 20 --repeat 3 --scaling strong
done
table 1 hydro3d hydro3d --device gpu --size 512 --steps 5 --repeat 1 --scaling strong
table 1 acoustic3d acoustic3d --device gpu --size 512 --steps 10 --repeat 1
table 1 elastic3d elastic3d --device gpu --size 256 --steps 10 --repeat 1 --scaling strong
table 1 acoustic3d-cpml acoustic3d --device gpu --size 512 --steps 10 --repeat 1 --boundary cpml
echo "== stencilscope bench heat3d --size 512 --device gpu (one GPU, every variant, for scale)"
timeout 60 $e bench heat3d --size 512 --device gpu --steps 20 --repeat 3 >"$out/one-gpu-heat3d.txt" 2>&1 || status=1
grep -vE "^\s*$" "$out/one-gpu-heat3d.txt" | tail -6
exit $status
