#!/usr/bin/env bash
# Session 23's H200 call: ab-overlay.sh (the working tree against ab-old/, heat3d stream25d;
# memcheck and racecheck on the default form), test_heat3d_gpu with the classic form forced,
# and heat2d's default strips at 8192^2 (issue 18).
set -uo pipefail
source "$(dirname "$0")/env.sh"
TOOLS="memcheck racecheck" SANITIZE_LIMIT=150 AB_ROUNDS=2 \
  AB_CASES="512:analytic 512:periodic 512:fixed 512:insulated 256:analytic" timeout 420 tests/device/ab-overlay.sh 2>&1 | tail -32
STENCILSCOPE_STREAM25_LEAN=0 timeout 120 build-gpu-nogui/bin/test_heat3d_gpu >"$out/test-heat3d-classic.log" 2>&1
echo "test_heat3d_gpu, classic form: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ tests?[,.]' "$out/test-heat3d-classic.log" | tr '\n' ' ')"
e=build-gpu-nogui/bin/stencilscope
b() { STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 60 $e bench "$@" | awk '$1 ~ /^(stream|stream25d)$/ { print $1 " " $4 " ms, copy " $7 }' | head -1; }
echo "heat2d 8192^2 default: $(b heat2d --variant stream --size 8192 --order 8 --repeat 10 --device gpu)"
echo "heat2d 8192^2 default: $(b heat2d --variant stream --size 8192 --order 8 --repeat 10 --device gpu)"
