#!/usr/bin/env bash
# The scaling tables of issues 19 and 21, in one device call on a machine of several GPUs
# (nvidia-h200-x2, nvidia-h200-x4; every rank its own GPU, halos through NCCL):
#   mpirun -np N stencilscope bench MODEL --device gpu --transport nccl --scaling weak|strong
# for each N in NP (default: 2 and every power of two up to the GPUs), each table beside
# the one-rank run of the same command (the model's GPU box variant on rank 0's GPU):
#  - heat3d stream25d, order 8, float: weak at 512^3 per GPU; strong at 768^3 (N = 2) and
#    1024^3 (N >= 4); at the largest N also the strong run over 1x1xN slabs and 1xNx1;
#  - hydro3d and elastic3d where their boxes run on the GPU: weak at 256^3 per GPU, and
#    hydro3d strong at 512^3.
# Build with BUILD (default build-gpu-mpi; configured here if absent). Tables in $out/scale-*.txt,
# a summary line per table on stdout. MODELS narrows the models (default "heat3d hydro3d elastic3d").
# CANDIDATES: settings of heat3d's GPU boxes to choose from, separated by ';', each "default"
# or environment assignments (e.g. "STENCILSCOPE_BOX_OVERLAP=beside STENCILSCOPE_BOX_RESERVE=8"):
# each runs the first weak-scaling table, and the one with the shortest N-rank time runs the rest
# (not the best efficiency: a setting that speeds up one GPU moves the one-rank run too).
# TRANSPORT: the GPU halos' transport (nccl, the default; peer; staged); a candidate may hold
# its own as "transport=peer".
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-mpi}
# NO_BUILD=1: the build is there already (an earlier check of the same call made it).
[[ -n ${NO_BUILD:-} ]] || build_no_gui $b || exit 1
e=$b/bin/stencilscope
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi topo -m >"$out/topo.txt" 2>&1
nps=${NP:-}
if [[ -z $nps ]]; then for n in 2 4 8; do ((n <= gpus)) && nps="${nps:+$nps }$n"; done; fi
models=${MODELS:-heat3d hydro3d elastic3d}
status=0
mpi=(mpirun --allow-run-as-root -q --mca btl self,vader -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS=4)
chosen=()  # the chosen candidate's environment (mpirun -x NAME=VALUE)
transport=${TRANSPORT:-nccl}
table() {  # seconds, name, np, then the bench arguments
  local limit=$1 name=$2 np=$3; shift 3
  local start=$SECONDS
  timeout "$limit" "${mpi[@]}" "${chosen[@]}" -np "$np" $e bench "$@" --device gpu --transport "$transport" >"$out/scale-$name.txt" 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  echo "== np $np $* (exit $rc, $((SECONDS - start)) s)"
  grep -E "^(one rank|[0-9]+ ranks)" "$out/scale-$name.txt" || tail -3 "$out/scale-$name.txt"
}
has() { [[ " $models " == *" $1 "* ]]; }
last=${nps##* }
first=${nps%% *}
if has heat3d && [[ -n ${CANDIDATES:-} ]]; then
  best=-1 best_env=() best_transport=$transport default_transport=$transport
  IFS=';' read -ra cands <<<"$CANDIDATES"
  for i in "${!cands[@]}"; do
    chosen=() transport=$default_transport
    for kv in ${cands[$i]}; do
      case $kv in default) ;; transport=*) transport=${kv#transport=} ;; *) chosen+=(-x "$kv") ;; esac
    done
    echo "-- candidate $i: ${cands[$i]}"
    table 240 heat3d-weak-$first-c$i $first heat3d --size 512 --steps 20 --repeat 3 --scaling weak
    ms=$(awk '$1 ~ /^[0-9]+$/ && $2 == "ranks" {print $7}' "$out/scale-heat3d-weak-$first-c$i.txt" | tail -1)
    if [[ -n $ms ]] && awk -v a="$ms" -v b="$best" 'BEGIN {exit !(b < 0 || a < b)}'; then best=$ms best_env=("${chosen[@]}") best_transport=$transport; fi
  done
  chosen=("${best_env[@]}") transport=$best_transport
  echo "-- chosen: ${chosen[*]:-default}, transport $transport ($first ranks: $best ms)"
fi
for np in $nps; do
  if has heat3d; then
    [[ -n ${CANDIDATES:-} && $np == "$first" ]] ||
      table 240 heat3d-weak-$np $np heat3d --size 512 --steps 20 --repeat 3 --scaling weak
    strong=$((np == 2 ? 768 : 1024))
    table 300 heat3d-strong-$np $np heat3d --size $strong --steps 20 --repeat 3 --scaling strong
    if [[ $np == "$last" && -z ${NO_SLABS:-} ]]; then  # NO_SLABS=1 leaves out the slab decompositions
      table 300 heat3d-strong-$np-slabz $np heat3d --size $strong --steps 20 --repeat 3 --scaling strong --decomp 1x1x$np
      table 300 heat3d-strong-$np-slaby $np heat3d --size $strong --steps 20 --repeat 3 --scaling strong --decomp 1x${np}x1
    fi
  fi
  if has hydro3d; then
    table 300 hydro3d-weak-$np $np hydro3d --size 256 --steps 5 --repeat 3 --scaling weak
    table 300 hydro3d-strong-$np $np hydro3d --size 512 --steps 5 --repeat 3 --scaling strong
  fi
  has elastic3d && table 300 elastic3d-weak-$np $np elastic3d --size 256 --steps 10 --repeat 3 --scaling weak
done
exit $status
