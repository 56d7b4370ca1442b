#!/usr/bin/env bash
# The distributed runs on a machine of several GPUs (nvidia-h200-x2 and up), in one device
# call: build with CUDA, MPI and NCCL (no GUI), then
#  - the MPI tests on 2, 3 and 4 ranks (CPU boxes bitwise equal to one rank, and the GPU
#    halo transports — staged through pinned host buffers, and NCCL — against the host
#    exchange: DeviceHaloExchange.StagedAndNcclFillAsTheHostExchange, rank r on GPU r % N),
#  - the distributed bench tables of every distributable model on the CPU backend (one line
#    each: the field equal to one rank's).
# GPU boxes are not wired to a model yet, so there is no GPU scaling figure to take here.
# Logs in $OUT (or ./out).
set -uo pipefail
source "$(dirname "$0")/env.sh"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast (shared/device/README.md)
b=${BUILD:-build-gpu-mpi}
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
e=$b/bin/stencilscope
status=0
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee "$out/devices.txt"
$e info | tee "$out/info.txt"
ctest --test-dir $b -R "mpi_|Mpi|Distributed" -j2 --output-on-failure >"$out/ctest-mpi.log" 2>&1 || status=1
grep -E "tests passed|\(Failed\)" "$out/ctest-mpi.log"
grep -h "DeviceHaloExchange" -A3 "$out/ctest-mpi.log" | grep -E "OK|FAILED|SKIPPED" | sort | uniq -c
mpi=(mpirun --allow-run-as-root --oversubscribe -q -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS=4)
for m in heat3d hydro3d acoustic3d elastic3d; do
  echo "== mpirun -np 2 stencilscope bench $m --size 96 --scaling strong"
  timeout 300 "${mpi[@]}" -np 2 $e bench $m --size 96 --steps 5 --scaling strong >"$out/dist-$m.txt" 2>&1 || status=1
  grep -vE "^\s*$" "$out/dist-$m.txt" | tail -6
done
exit $status
