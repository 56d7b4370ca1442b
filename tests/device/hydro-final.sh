#!/usr/bin/env bash
# The whole hydro3d check on one GPU machine: build (no GUI), every gpu-labelled test,
# the timing tables at 256^3 (float, double) and 128^3, and the paper's physics tests on
# the GPU methods (bench --test decay, explosion, turbulence). Logs in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
e=$b/bin/stencilscope
ctest --test-dir $b -L gpu -j4 --output-on-failure >"$out/ctest-gpu.log" 2>&1
grep -E "tests passed|\(Failed\)" "$out/ctest-gpu.log" | head
t() { local name=$1 limit=$2; shift 2; echo "== $*"; timeout "$limit" $e "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1; echo "(exit $?)"; grep -vE "^\s*$" "$out/$name.txt" | tail -${TAIL:-14}; }
TAIL=7 t h256 120 bench hydro3d --size 256 --device gpu --steps 5 --repeat 5
TAIL=7 t h128 120 bench hydro3d --size 128 --device gpu --steps 10 --repeat 5
TAIL=7 t h256d 120 bench hydro3d --size 256 --device gpu --steps 3 --repeat 3 --precision double
t decay 120 bench hydro3d --test decay --device gpu
t explosion 150 bench hydro3d --test explosion --device gpu --size 64,128
t turbulence 150 bench hydro3d --test turbulence --device gpu --variant stream25d --size 64
