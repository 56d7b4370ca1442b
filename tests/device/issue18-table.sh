#!/usr/bin/env bash
# Issue 18's table in one device call, on whatever card this is, plus heat2d stream's strip
# height and lane width swept at 8192^2 (STENCILSCOPE_STREAM_ROWS, STENCILSCOPE_STREAM_PACKS:
# the per-device choice the issue allows), then, with TOOLS set, sanitize.sh over every model
# with those tools (SANITIZE_JOBS, default 12), under a time limit of SANITIZE_LIMIT seconds.
#  1. build $BUILD (default build-gpu-nogui; GUI off, sm_90): stencilscope only;
#  2. the table (order 8, float, copy ratio of the same run, best of --repeat):
#     heat2d stream 8192^2; heat3d stream25d 512^3 under the four rules, 256^3 analytic;
#     deriv3d stream 512^3 x/y/z;
#  3. SWEEP=1 (default): heat2d 8192^2 with strips of 8..48 rows and one or two packs a lane;
#  4. SEISMIC=1: issue 23's rows, 512^3, order 8, float, 5 steps (elastic3d steps and
#     register25d: goal 3x steps and 0.65 of copy on the H100; acoustic3d global and
#     stream25d: goal 0.85);
#  5. TESTS=1: the heat2d and deriv3d GPU tests (every forced strip height included) before
#     the benches;
#  6. FORMS=1: heat3d's rows again with the other stream25d form forced (lean on an H100,
#     classic on an H200: STENCILSCOPE_STREAM25_LEAN), and 256^3 analytic with face producers
#     (STENCILSCOPE_FACES=producers; the default there is the face kernel) in both forms.
# Logs in $OUT/i18 (or ./out/i18); the table last.
#   TOOLS="memcheck initcheck" tests/device/issue18-table.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
log=$out/i18
mkdir -p "$log"
t0=$SECONDS
build_no_gui "$b" stencilscope || exit 1
echo "build: $((SECONDS - t0)) s"
exe=$b/bin/stencilscope
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$log/device.txt"

bench() {  # name env-assignment bench-arguments...
  local name=$1 envset=$2; shift 2
  env $envset STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 90 "$exe" bench "$@" --json "$log/$name.json" \
    >"$log/$name.txt" 2>&1 || { echo "bench $name failed: $(tail -1 "$log/$name.txt")"; status=1; }
}
if [[ ${TESTS:-0} == 1 ]]; then
  cmake --build "$b" --parallel "$(nproc)" --target test_heat2d_gpu test_deriv3d_gpu >>"$out/build.log" 2>&1 || status=1
  gpu_test() {  # name env-assignment binary [gtest arguments]
    local name=$1 envset=$2 bin=$3
    shift 3
    env $envset timeout 300 "$b/bin/$bin" "$@" >"$log/test-$name.log" 2>&1 || status=1
    echo "$name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$log/test-$name.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \] [A-Z]' "$log/test-$name.log" | head -5
  }
  gpu_test heat2d "" test_heat2d_gpu
  for rows in 12 20 40; do
    gpu_test "heat2d-rows$rows" "STENCILSCOPE_STREAM_ROWS=$rows" test_heat2d_gpu --gtest_filter='OrdersAndOddSizes/*:All/GpuBoundaries.*'
  done
  gpu_test deriv3d "" test_deriv3d_gpu
fi
t1=$SECONDS
bench h2-8192 "" heat2d --variant stream --size 8192 --order 8 --repeat 10 --device gpu
for rule in analytic periodic fixed insulated; do
  bench "h3-512-$rule" "" heat3d --variant stream25d --size 512 --order 8 --steps 20 --repeat 3 --device gpu --boundary $rule
done
bench h3-256-analytic "" heat3d --variant stream25d --size 256 --order 8 --steps 20 --repeat 3 --device gpu --boundary analytic
if [[ ${FORMS:-0} == 1 ]]; then
  for lean in 0 1; do
    for rule in analytic periodic fixed insulated; do
      bench "h3-512-$rule-lean$lean" "STENCILSCOPE_STREAM25_LEAN=$lean" heat3d --variant stream25d --size 512 --order 8 --steps 20 \
        --repeat 3 --device gpu --boundary $rule
    done
    bench "h3-256-analytic-lean$lean-producers" "STENCILSCOPE_STREAM25_LEAN=$lean STENCILSCOPE_FACES=producers" heat3d --variant stream25d \
      --size 256 --order 8 --steps 20 --repeat 3 --device gpu --boundary analytic
  done
fi
for axis in x y z; do
  bench "d3-512-$axis" "" deriv3d --variant stream --size 512 --order 8 --repeat 10 --device gpu --param axis=$axis
done
if [[ ${SWEEP:-1} == 1 ]]; then
  for packs in 1 2; do
    for rows in 8 12 16 20 24 32 48; do
      bench "h2-sweep-p$packs-r$rows" "STENCILSCOPE_STREAM_PACKS=$packs STENCILSCOPE_STREAM_ROWS=$rows" \
        heat2d --variant stream --size 8192 --order 8 --repeat 10 --device gpu
    done
  done
fi
if [[ ${SEISMIC:-0} == 1 ]]; then
  for v in steps register25d; do
    bench "el-512-$v" "" elastic3d --variant $v --size 512 --order 8 --steps 5 --repeat 3 --device gpu
  done
  for v in global stream25d; do
    bench "ac-512-$v" "" acoustic3d --variant $v --size 512 --order 8 --steps 10 --repeat 3 --device gpu
  done
fi
echo "benches: $((SECONDS - t1)) s"

if [[ -n ${TOOLS:-} ]]; then
  t2=$SECONDS
  # shellcheck disable=SC2086
  OUT=$log/san SANITIZE_JOBS=${SANITIZE_JOBS:-12} timeout "${SANITIZE_LIMIT:-330}" tests/device/sanitize.sh "$b" $TOOLS \
    >"$log/sanitize.txt" 2>&1
  rc=$?
  ((rc == 0)) || status=1
  echo "sanitize.sh $TOOLS (exit $rc, $((SECONDS - t2)) s): $(grep -c '^clean' "$log/sanitize.txt") clean," \
    "$(grep -c '^skipped' "$log/sanitize.txt") skipped, $(grep -c '^known' "$log/sanitize.txt") known," \
    "$(grep -cvE '^(clean|skipped|known)' "$log/sanitize.txt") other lines"
  grep -vE '^(clean|skipped)' "$log/sanitize.txt" | head -30
fi

python3 - "$log" <<'PY'
import glob, json, os, sys
log = sys.argv[1]
def cell(stem):
    p = os.path.join(log, stem + ".json")
    try:
        j = json.load(open(p))
        rs = [r for r in j["rows"] if r.get("copy_ratio") and r.get("device") == "gpu"]
        return " ".join(f"{r['copy_ratio']:.3f}" for r in rs) + f" ({rs[0]['time_ms']:.3f} ms)", j.get("device", "?")
    except Exception as e:
        return f"missing ({e.__class__.__name__})", "?"
rows = [("heat2d stream 8192^2 (goal 0.90)", "h2-8192")]
rows += [(f"heat3d stream25d 512^3 {r} (goal 0.85)", f"h3-512-{r}") for r in ("analytic", "periodic", "fixed", "insulated")]
rows += [("heat3d stream25d 256^3 analytic (goal 0.80)", "h3-256-analytic")]
rows += [(f"deriv3d stream 512^3 {a} (goal 0.90)", f"d3-512-{a}") for a in "xyz"]
for lean in (0, 1):
    if os.path.exists(os.path.join(log, f"h3-512-analytic-lean{lean}.json")):
        rows += [(f"heat3d 512^3 {r}, {'lean' if lean else 'classic'} form", f"h3-512-{r}-lean{lean}")
                 for r in ("analytic", "periodic", "fixed", "insulated")]
        rows += [(f"heat3d 256^3 analytic, {'lean' if lean else 'classic'}, face producers", f"h3-256-analytic-lean{lean}-producers")]
if os.path.exists(os.path.join(log, "el-512-steps.json")):
    rows += [("elastic3d steps 512^3", "el-512-steps"), ("elastic3d register25d 512^3 (goal 0.65, 3x steps)", "el-512-register25d"),
             ("acoustic3d global 512^3", "ac-512-global"), ("acoustic3d stream25d 512^3 (goal 0.85)", "ac-512-stream25d")]
device = "?"
for title, stem in rows:
    c, d = cell(stem)
    device = d if d != "?" else device
    print(f"{title:48s} {c}")
sweep = sorted(glob.glob(os.path.join(log, "h2-sweep-*.json")))
if sweep:
    print("heat2d stream 8192^2, strips of R rows, P packs a lane:")
    for packs in (1, 2):
        cells = []
        for rows_ in (8, 12, 16, 20, 24, 32, 48):
            c, _ = cell(f"h2-sweep-p{packs}-r{rows_}")
            cells.append(f"R{rows_} {c.split(' ')[0]}")
        print(f"  P{packs}: " + "  ".join(cells))
print(f"device: {device}")
PY
echo "total: $((SECONDS - t0)) s"
exit $status
