#!/usr/bin/env bash
# Issue 18 item 3 in one device call (docs/perf.md, session 15): stream25d's two-pack
# shapes (STENCILSCOPE_STREAM25=2pack, 2pack24) and heat2d stream's two-pack lanes
# (STENCILSCOPE_STREAM_PACKS=2) against the defaults, on whatever card this is.
#  1. build $BUILD (default build-gpu-nogui; configured GUI off, sm_90, if it is not yet):
#     stencilscope, test_heat3d_gpu, test_heat2d_gpu only;
#  2. the GPU tests under each new shape (bitwise against the cpu variant, every order,
#     rule and precision, sizes whose last pack is cut at every position);
#  3. one table of copy ratios (order 8, float): heat3d stream25d 512^3 analytic and
#     periodic, 256^3 analytic, per shape; heat2d stream 8192^2 per lane width;
#  4. compute-sanitizer memcheck on the new shapes at 45x37x29 (heat2d 301x97), 2 steps;
#  5. ncu: warp instructions of one step per shape (the saving the shapes are for).
#  A shape whose tests fail is left out of the later parts.
# Each part runs under its own time limit; parts 2-4 are meant to take about 150 s after
# the build; part 5 (H200_TUNE_NCU=1 only) about 60 s more.
# Logs in $OUT/h200 (or ./out/h200).
#   tests/device/h200-tune.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
log=$out/h200
mkdir -p "$log"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$log/device.txt"
t0=$SECONDS
if [[ ! -f $b/build.ninja ]]; then
  cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real \
    >"$log/cfg.log" 2>&1 || { tail -20 "$log/cfg.log"; exit 1; }
fi
cmake --build "$b" --target stencilscope test_heat3d_gpu test_heat2d_gpu --parallel "$(nproc)" >"$log/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$log/build.log" | head -40; exit 1; }
echo "build: $((SECONDS - t0)) s"
exe=$b/bin/stencilscope
status=0
t1=$SECONDS

# 2. Tests: every order, rule and precision on the odd sizes (the 256^3 case is left to
#    ctest). A shape that fails (or hangs: exit 124) is left out of the benches and memcheck.
shapes=(default)
for shape in 2pack 2pack24; do
  STENCILSCOPE_STREAM25=$shape timeout 60 "$b/bin/test_heat3d_gpu" \
    --gtest_filter='*Heat3DGpu.*:Heat3DGpuAnalytic.*:Heat3DGpuLarge.TallThinGrids' >"$log/test-heat3d-$shape.log" 2>&1
  rc=$?
  echo "test_heat3d_gpu STENCILSCOPE_STREAM25=$shape (exit $rc): $(grep -E '^\[  (PASSED|FAILED)  \]' "$log/test-heat3d-$shape.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \]|Failure|rror" "$log/test-heat3d-$shape.log" | head -6
  if [[ $rc == 0 ]]; then shapes+=("$shape"); else status=1; fi
done
packs=(1)
STENCILSCOPE_STREAM_PACKS=2 timeout 40 "$b/bin/test_heat2d_gpu" \
  --gtest_filter='OrdersAndOddSizes/*:All/GpuBoundaries.*:GpuHeat2D.TallGrid*' >"$log/test-heat2d-2packs.log" 2>&1
rc=$?
echo "test_heat2d_gpu STENCILSCOPE_STREAM_PACKS=2 (exit $rc): $(grep -E '^\[  (PASSED|FAILED)  \]' "$log/test-heat2d-2packs.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]|Failure|rror" "$log/test-heat2d-2packs.log" | head -6
if [[ $rc == 0 ]]; then packs+=(2); else status=1; fi
echo "tests: $((SECONDS - t1)) s"

# 3. The table. One process per shape (the shape is read once per process).
t2=$SECONDS
bench() {  # name env-assignment bench-arguments...
  local name=$1 envset=$2; shift 2
  env $envset timeout 60 "$exe" bench "$@" --json "$log/$name.json" >"$log/$name.txt" 2>&1 || echo "bench $name failed: $(tail -1 "$log/$name.txt")"
}
h3="heat3d --variant stream25d --order 8 --steps 10 --repeat 3 --device gpu"
for shape in "${shapes[@]}"; do
  bench "h3-512-periodic-$shape" "STENCILSCOPE_STREAM25=$shape" $h3 --size 512 --boundary periodic
done
for shape in "${shapes[@]}"; do
  [[ $shape == 2pack24 ]] && continue  # it does not fit the analytic rule's tables: it runs 2pack
  bench "h3-512-analytic-$shape" "STENCILSCOPE_STREAM25=$shape" $h3 --size 512 --boundary analytic
  bench "h3-256-analytic-$shape" "STENCILSCOPE_STREAM25=$shape" $h3 --size 256 --boundary analytic
done
for n in "${packs[@]}"; do
  bench "h2-8192-packs$n" "STENCILSCOPE_STREAM_PACKS=$n" heat2d --variant stream --size 8192 --order 8 --repeat 10 --device gpu
done
python3 - "$log" <<'PY'
import json, os, sys
log = sys.argv[1]
rows = [("heat3d stream25d 512^3 analytic (goal 0.85)", "h3-512-analytic", ["default", "2pack"]),
        ("heat3d stream25d 512^3 periodic (goal 0.85)", "h3-512-periodic", ["default", "2pack", "2pack24"]),
        ("heat3d stream25d 256^3 analytic (goal 0.80)", "h3-256-analytic", ["default", "2pack"]),
        ("heat2d stream 8192^2 (goal 0.90)", "h2-8192", ["packs1", "packs2"])]
device = "?"
print("case | shape: copy ratio (ms per 10 steps, error against the double reference) ...")
for title, stem, shapes in rows:
    cells = []
    for sh in shapes:
        p = os.path.join(log, f"{stem}-{sh}.json")
        try:
            j = json.load(open(p))
            device = j.get("device", device)
            r = [r for r in j["rows"] if r.get("copy_ratio")][0]
            rel = f", rel_l2 {r['rel_l2']:.1e}" if r.get("rel_l2") is not None else ""
            cells.append(f"{sh}: {r['copy_ratio']:.3f} ({r['time_ms']:.3f} ms{rel})")
        except Exception as e:
            cells.append(f"{sh}: missing ({e.__class__.__name__})")
    print(f"{title} | " + " | ".join(cells))
print(f"device: {device}")
PY
echo "table: $((SECONDS - t2)) s"

# 4. memcheck on the new shapes (sanitize.sh's cases: every rule, float and double).
t3=$SECONDS
for shape in "${shapes[@]:1}"; do
  OUT=$log/san-$shape STENCILSCOPE_STREAM25=$shape SANITIZE_MODELS=heat3d SANITIZE_VARIANTS=stream25d SANITIZE_JOBS=8 \
    timeout 60 tests/device/sanitize.sh "$b" memcheck | tail -1 | sed "s/^/$shape: /" || status=1
done
if [[ ${#packs[@]} == 2 ]]; then
  OUT=$log/san-h2 STENCILSCOPE_STREAM_PACKS=2 SANITIZE_MODELS=heat2d SANITIZE_VARIANTS=stream SANITIZE_JOBS=8 \
    timeout 40 tests/device/sanitize.sh "$b" memcheck | tail -1 | sed "s/^/heat2d 2 packs: /" || status=1
fi
echo "memcheck: $((SECONDS - t3)) s"

# 5. Instructions per step: ncu on one step of each shape, 512^3 periodic (warp instructions
#    executed, issue-active share, duration; on the H200 session 9 had 250.6 M, 0.66, 392 us).
#    About 60 s more: only with H200_TUNE_NCU=1.
t4=$SECONDS
if [[ ${H200_TUNE_NCU:-0} == 1 ]] && command -v ncu >/dev/null; then
  for shape in "${shapes[@]}"; do
    STENCILSCOPE_STREAM25=$shape timeout 45 ncu --kernel-name regex:stream25d --launch-count 1 \
      --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread,launch__block_size \
      "$exe" bench heat3d --variant stream25d --size 512 --order 8 --steps 1 --repeat 1 --device gpu --boundary periodic \
      >"$log/ncu-$shape.txt" 2>&1
    echo "ncu $shape: $(grep -E "smsp__|gpu__|launch__" "$log/ncu-$shape.txt" | awk '{print $1 "=" $NF}' | tr '\n' ' ')"
  done
  STENCILSCOPE_STREAM_PACKS=2 timeout 30 ncu --kernel-name regex:heat2d_step_stream --launch-count 1 \
    --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread \
    "$exe" bench heat2d --variant stream --size 8192 --order 8 --steps 1 --repeat 1 --device gpu >"$log/ncu-h2-2.txt" 2>&1
  timeout 30 ncu --kernel-name regex:heat2d_step_stream --launch-count 1 \
    --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread \
    "$exe" bench heat2d --variant stream --size 8192 --order 8 --steps 1 --repeat 1 --device gpu >"$log/ncu-h2-1.txt" 2>&1
  for n in 1 2; do
    echo "ncu heat2d packs $n: $(grep -E "smsp__|gpu__|launch__" "$log/ncu-h2-$n.txt" | awk '{print $1 "=" $NF}' | tr '\n' ' ')"
  done
fi
echo "ncu: $((SECONDS - t4)) s; total after the build $((SECONDS - t1)) s"
exit $status
