#!/usr/bin/env bash
# Issue 20 item 2: is the window's loop slower than `bench`, or is a short `bench` faster
# than any run of a few seconds? `throughput.sh` divides the window's steps/s over 300 frames
# (5 s at 60 Hz) by `bench --steps 50` (about 3 ms a run). If the card lowers its SM clock
# under a load of seconds (power or temperature), a kernel bound in the SM (heat3d on the H200)
# loses that in the window and not in the short bench. Per case, in this order, with
# nvidia-smi sampling the SM clock, power, temperature and the clock-event reasons every 50 ms:
#   bench50   bench --steps 50 --repeat 5 (throughput.sh's denominator)
#   window    record --headless --measure --frames FRAMES (the goal row), then --against-bench
#             (bench of 50 steps in the same process, right after the loop)
#   bare      the same loop without drawing or uploads (no GL work at all)
#   longbench bench --steps LONG_STEPS --repeat 1: as many steps as the window makes, in one run
#   bench50b  bench --steps 50 --repeat 5 again, at once
# and prints per phase the steps/s and the SM clock (median, 10th percentile), power and the
# reasons seen. BUILD (default build-gpu, with the GUI library: `record --headless`).
#   tests/device/sustained.sh [FRAMES]   (default 300)
set -uo pipefail
source "$(dirname "$0")/env.sh"
frames=${1:-300}
build=${BUILD:-build-gpu}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
    >"$out/configure-sustained.log" 2>&1 || { tail -30 "$out/configure-sustained.log"; exit 1; }
fi
cmake --build $build --parallel "$(nproc)" --target stencilscope >"$out/build-sustained.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build-sustained.log" | head -60; exit 1; }
exe=$build/bin/stencilscope
export STENCILSCOPE_BENCH_NO_REFERENCE=1
phases=$out/sustained-phases.txt
smi=$out/sustained-smi.csv
: >"$phases"
reasons=clocks_event_reasons.active  # the older drivers' name: clocks_throttle_reasons.active
nvidia-smi --query-gpu=$reasons --format=csv >/dev/null 2>&1 || reasons=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,$reasons \
  --format=csv,noheader,nounits -lms 50 >"$smi" 2>&1 &
smi_pid=$!
sleep 1

# phase CASE NAME COMMAND...: runs the command, notes its start, end and steps/s.
phase() {
  local case=$1 name=$2; shift 2
  local t0 t1 log=$out/sustained-$case-$name.txt
  t0=$(date +%s.%N)
  "$@" >"$log" 2>&1 || echo "$case $name failed: $(tail -2 "$log")" >&2
  t1=$(date +%s.%N)
  local sps
  sps=$(awk '/^measure: [0-9.]+ steps\/s/ { print $2; exit }
             $2 == "gpu" && $4 + 0 > 0 { steps = ENVIRON["STEPS"]; printf "%.1f\n", steps * 1000 / $4; exit }' STEPS="${STEPS:-0}" "$log")
  echo "$case $name $t0 $t1 ${sps:-nan}" >>"$phases"
}

# run_case CASE MODEL SIZE VARIANT LONG_STEPS
run_case() {
  local c=$1 model=$2 size=$3 variant=$4 long=$5
  local bench=(bench "$model" --device gpu --size "$size" --variant "$variant")
  STEPS=50 phase "$c" bench50 $exe "${bench[@]}" --steps 50 --repeat 5
  phase "$c" window env -u DISPLAY $exe record --headless --measure --against-bench --device gpu --frames "$frames" \
    --model "$model" --size "$size" --variant "$variant"
  phase "$c" bare env -u DISPLAY $exe record --headless --measure --device gpu --frames "$frames" \
    --model "$model" --size "$size" --variant "$variant" --no-draw --draw-every 1000000
  STEPS=$long phase "$c" longbench $exe "${bench[@]}" --steps "$long" --repeat 1
  STEPS=50 phase "$c" bench50b $exe "${bench[@]}" --steps 50 --repeat 5
  grep -h "window / bench" "$out/sustained-$c-window.txt" | sed "s/^/$c: /"
}

run_case heat3d heat3d 256 stream25d "${LONG3:-100000}"
run_case heat2d heat2d 4096 stream "${LONG2:-100000}"
sleep 0.5
kill $smi_pid 2>/dev/null
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
python3 - "$phases" "$smi" <<'PY'
import sys, datetime, statistics
phases = [l.split() for l in open(sys.argv[1]) if l.strip()]
samples = []
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 5:
        continue
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        samples.append((t, float(f[1]), float(f[2]), float(f[3]), f[4]))
    except ValueError:
        pass
print(f"{'case':8s} {'phase':10s} {'seconds':>8s} {'steps/s':>10s} {'SM MHz med':>10s} {'p10':>6s} {'min':>6s} {'W mean':>7s} {'W max':>6s} {'C max':>5s}  reasons")
for case, name, t0, t1, sps in phases:
    t0, t1 = float(t0), float(t1)
    s = [x for x in samples if t0 <= x[0] <= t1]
    # only the samples with the GPU loaded (above a third of the phase's top power): start-up excluded
    if s:
        top = max(x[2] for x in s)
        s = [x for x in s if x[2] >= top / 3] or s
    if not s:
        print(f"{case:8s} {name:10s} {t1 - t0:8.2f} {sps:>10s}  (no samples)")
        continue
    mhz = sorted(x[1] for x in s)
    reasons = sorted(set(x[4] for x in s))
    print(f"{case:8s} {name:10s} {t1 - t0:8.2f} {sps:>10s} {statistics.median(mhz):10.0f} {mhz[len(mhz) // 10]:6.0f} {mhz[0]:6.0f} "
          f"{statistics.mean(x[2] for x in s):7.0f} {max(x[2] for x in s):6.0f} {max(x[3] for x in s):5.0f}  {' '.join(reasons)}")
PY
