#!/usr/bin/env bash
# Programmatic dependent launch (sim/core/pdl.cuh) on and off in one build: builds
# stencilscope and the heat GPU tests (build-gpu-nogui), benches heat3d stream25d
# (PDL_CASES, SIZE:RULE; 20 steps, best of 3) and heat2d stream 8192^2 (--repeat 10) with
# STENCILSCOPE_PDL=0 and 1 in turns (PDL_ROUNDS), and PDL_MORE (default heat2d; deriv3d-x|y|z:
# deriv3d stream 512^3 on that axis, --repeat 10), runs the tests with it on (the default)
# and, with TOOLS, sanitize.sh on heat2d stream and heat3d stream25d.
# AB_VAR names another 0/1 switch to compare the same way (default STENCILSCOPE_PDL; e.g.
# STENCILSCOPE_ANALYTIC_FRAME with patches/s26-analytic-from-the-frame.patch applied).
#   PDL_CASES="256:analytic 512:analytic" TOOLS="memcheck racecheck" tests/device/pdl-ab.sh   logs in $OUT
set -uo pipefail
source "$(dirname "$0")/env.sh"
t0=$SECONDS
var=${AB_VAR:-STENCILSCOPE_PDL}
build_no_gui build-gpu-nogui stencilscope test_heat3d_gpu test_heat2d_gpu test_deriv3d_gpu || exit 1
echo "== built, $((SECONDS - t0)) s"
e=build-gpu-nogui/bin/stencilscope
export STENCILSCOPE_BENCH_NO_REFERENCE=1
status=0
for round in $(seq 1 "${PDL_ROUNDS:-2}"); do
  for c in ${PDL_CASES:-256:analytic 256:periodic 512:analytic 512:periodic 512:insulated} ${PDL_MORE:-heat2d}; do
    for pdl in 0 1; do
      f=$out/bench-$c-pdl$pdl-$round.txt
      if [[ $c == deriv3d-* ]]; then
        env "$var=$pdl" timeout 60 $e bench deriv3d --variant stream --device gpu --size 512 --order 8 --repeat 10 \
          --param axis=${c#deriv3d-} >"$f" 2>&1 || { rc=$?; status=1; echo "bench exit $rc: $f"; }
        echo "round $round $c 512 $var=$pdl: $(awk '$2 == "stream" && $3 == "gpu" { print $7 " ms, copy " $10 }' "$f" | head -1)"
      elif [[ $c == heat2d ]]; then
        env "$var=$pdl" timeout 60 $e bench heat2d --variant stream --device gpu --size 8192 --order 8 --repeat 10 \
          --precision float >"$f" 2>&1 || { rc=$?; status=1; echo "bench exit $rc: $f"; }
        echo "round $round heat2d 8192 $var=$pdl: $(awk '$1 == "stream" && $2 == "gpu" { print $4 " ms, copy " $7 }' "$f" | head -1)"
      else
        size=${c%%:*} rule=${c#*:}
        env "$var=$pdl" timeout 60 $e bench heat3d --variant stream25d --device gpu --size "$size" --order 8 --steps 20 \
          --repeat 3 --precision float --param boundary="$rule" >"$f" 2>&1 || { rc=$?; status=1; echo "bench exit $rc: $f"; }
        echo "round $round $size $rule $var=$pdl: $(awk '$1 == "stream25d" { print $4 " ms, copy " $7 }' "$f" | head -1)"
      fi
    done
  done
done
for t in test_heat3d_gpu test_heat2d_gpu test_deriv3d_gpu; do
  timeout 240 build-gpu-nogui/bin/$t >"$out/$t.log" 2>&1 || { rc=$?; status=1; echo "$t exit $rc"; }
  echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/$t.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Z]' "$out/$t.log" | head -5
done
if [[ -n ${TOOLS:-} ]]; then
  # shellcheck disable=SC2086
  OUT=$out/san SANITIZE_MODELS=${SANITIZE_MODELS:-"heat3d heat2d deriv3d"} SANITIZE_VARIANTS="stream25d stream" SANITIZE_JOBS=${SANITIZE_JOBS:-12} \
    timeout "${SANITIZE_LIMIT:-150}" tests/device/sanitize.sh build-gpu-nogui $TOOLS >"$out/sanitize.txt" 2>&1 || status=1
  echo "sanitize: $(grep -c '^clean' "$out/sanitize.txt") clean; the rest:"
  grep -vE '^clean' "$out/sanitize.txt" | tail -10
fi
echo "pdl-ab: $((SECONDS - t0)) s"
exit $status
