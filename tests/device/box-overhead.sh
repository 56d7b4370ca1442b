#!/usr/bin/env bash
# What a GPU box costs without any exchange (docs/distributed.md, "Session 20 on the GPUs":
# heat3d's box kernel is 11% over one GPU, elastic3d's box 22%): each model's one-GPU run
# against one box holding the whole grid (`mpirun -np 1 ... bench --device gpu --decomp
# 1x1x1`: the same table's "one rank" and "1 ranks" rows, no neighbour, every face the
# domain's), at the sizes of the scaling tables. One device call of about three minutes on a
# single GPU (BUILD: the build folder, default build-gpu-mpi).
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-mpi}
build_no_gui $b stencilscope || exit 1
e=$b/bin/stencilscope
status=0
run() {  # name, then the bench arguments
  local name=$1; shift
  timeout 150 mpirun --allow-run-as-root -q --mca btl self,vader -np 1 $e bench "$@" --device gpu --decomp 1x1x1 \
    >"$out/overhead-$name.txt" 2>&1 || status=1
  echo "== $name: $*"
  grep -E "^(one rank|1 ranks)" "$out/overhead-$name.txt" || tail -3 "$out/overhead-$name.txt"
}
run heat3d heat3d --size 512 --steps 20 --repeat 3
run heat3d-periodic heat3d --size 512 --steps 20 --repeat 3 --boundary periodic
run hydro3d hydro3d --size 256 --steps 5 --repeat 3
run elastic3d elastic3d --size 256 --steps 10 --repeat 3
exit $status
