#!/usr/bin/env bash
# Session 15's figures in one go, without the double reference (STENCILSCOPE_BENCH_NO_REFERENCE):
# acoustic3d 512^3 order 8 (every stream25d shape, sponge), heat3d stream25d 512^3 (default
# and the two-pack shapes, analytic and periodic) and 256^3 analytic, heat2d stream 8192^2
# (one and two packs per lane). Copy
# ratios in each table's "copy" column. BUILD names the build folder (default build-gpu).
set -uo pipefail
source "$(dirname "$0")/env.sh"
e=${BUILD:-build-gpu}/bin/stencilscope
export STENCILSCOPE_BENCH_NO_REFERENCE=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
row() {  # name, environment (or -), bench arguments: prints the table's rows
  local name=$1 envset=$2; shift 2
  [[ $envset == - ]] && envset=
  env $envset timeout 60 "$e" bench "$@" --device gpu --json "$out/$name.json" >"$out/$name.txt" 2>&1 ||
    echo "bench $name failed: $(tail -1 "$out/$name.txt")"
  echo "== $name ($envset): $(grep -m1 '^device:' "$out/$name.txt" | sed 's/; commit.*//')"
  awk '$2 == "gpu" { printf "   %-22s %-6s %9s ms  copy %s\n", $1, $3, $4, $7 }' "$out/$name.txt"
}
row acoustic-512 STENCILSCOPE_ACOUSTIC25=all acoustic3d --size 512 --order 8 --steps 10 --repeat 3
for shape in default 2pack 2pack24; do
  envset=-; [[ $shape == default ]] || envset=STENCILSCOPE_STREAM25=$shape
  row heat3d-512-periodic-$shape $envset heat3d --variant stream25d --size 512 --order 8 --steps 10 --repeat 3 --boundary periodic
  row heat3d-512-analytic-$shape $envset heat3d --variant stream25d --size 512 --order 8 --steps 10 --repeat 3 --boundary analytic
  row heat3d-256-analytic-$shape $envset heat3d --variant stream25d --size 256 --order 8 --steps 20 --repeat 3 --boundary analytic
done
row heat2d-8192-packs1 - heat2d --variant stream --size 8192 --order 8 --repeat 10
row heat2d-8192-packs2 STENCILSCOPE_STREAM_PACKS=2 heat2d --variant stream --size 8192 --order 8 --repeat 10
