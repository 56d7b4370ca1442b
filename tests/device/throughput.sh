#!/usr/bin/env bash
# Issue 20 item 2 on a machine with an NVIDIA GPU: does the window's frame loop keep the
# GPU busy? Builds (CUDA; the GUI library builds headless-only where GLFW is missing, which
# is all `record --headless` needs), runs the GPU tests of the queued frame loop, then
# compares steps per second of the window's loop (`record --headless --measure`: adaptive
# batches, never waiting for one, glFinish each frame, frames paced as vsync on a 60 Hz
# display paces the window) with `bench` (the kernel alone) at heat2d 4096^2 (stream) and
# heat3d 256^3 (stream25d). Goal: ratio >= 0.95 at >= 60 fps. Unpaced rows (vsync off)
# and the host-copy path are shown for information. The goal rows take the default CUDA-GL
# path (shared slots where the GL context and CUDA can, else map: the "upload path"
# column says which); the "map path" and "external path" rows force STENCILSCOPE_INTEROP
# to compare.
# PROBES="each map-only no-map" adds
# rows with STENCILSCOPE_INTEROP_PROBE set to each (where the upload's cost goes:
# a map per texture, the maps without the copies, the copies without the maps).
# The goal rows run GOAL_REPEAT times (default 3) and show the median run.
# TARGETS (space-separated) builds only those (the default: everything). CTEST_TIMEOUT: seconds a test may take (300).
# BUDGETS="16 33" adds the goal rows again with those adaptive batch lengths (--frame-budget MS).
# CTEST=0 skips the window-loop GPU tests.
# ROWS=goal runs only the goal rows and the variant rows below (the default "all" runs every row).
# VARIANT_ROWS=1 adds heat2d's `global` variant (no shared memory) without drawing, bare and with
# one GL clear a frame: does the GL hand-over cost depend on what the CUDA kernel holds in the SM?
# Logs go to $OUT (or ./out).
#   tests/device/throughput.sh [FRAMES]      FRAMES measured per run (default 300)
set -uo pipefail
source "$(dirname "$0")/env.sh"
frames=${1:-300}
probe=
interop=
build=${BUILD:-build-gpu}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
    >"$out/configure-throughput.log" 2>&1 || { tail -30 "$out/configure-throughput.log"; exit 1; }
fi
cmake --build $build --parallel "$(nproc)" ${TARGETS:+--target $TARGETS} >"$out/build-throughput.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build-throughput.log" | head -60; exit 1; }
exe=$build/bin/stencilscope
status=0
rm -f "$out/goal-runs.txt"
[[ ${CTEST:-1} == 0 ]] || ctest --test-dir $build --timeout "${CTEST_TIMEOUT:-300}" -R 'QueuedFrames|Staging|RecordGpu|LiveSimulation|ExternalInterop|SharedSlot|FieldTextureStores|InteropChoice' --output-on-failure \
  >"$out/ctest-throughput.log" 2>&1 || status=1
grep -E "tests passed|\(Failed\)|Skipped\)" "$out/ctest-throughput.log" | tail -12

# bench_steps_per_s NAME MODEL VARIANT STEPS [options]: steps/s of the variant's row (time = STEPS steps).
bench_steps_per_s() {
  local name=$1 model=$2 variant=$3 steps=$4; shift 4
  $exe bench "$model" --device gpu --variant "$variant" --steps "$steps" --repeat 5 "$@" >"$out/$name.txt" 2>&1 ||
    { echo "bench failed: $(tail -3 "$out/$name.txt")" >&2; return 1; }
  awk -v v="$variant" -v n="$steps" '$1 == v && $2 == "gpu" { printf "%.1f", n * 1000 / $4; exit }' "$out/$name.txt"
}
# measure NAME [record options]: "STEPS_PER_S FPS STEPPING_PERCENT PATH" of the window's loop.
measure() {
  local name=$1; shift
  env -u DISPLAY ${probe:+STENCILSCOPE_INTEROP_PROBE=$probe} ${interop:+STENCILSCOPE_INTEROP=$interop} $exe record --headless --measure --device gpu --frames "$frames" "$@" >"$out/$name.txt" 2>&1 ||
    { echo "record failed: $(tail -3 "$out/$name.txt")" >&2; return 1; }
  local sps fps busy path
  sps=$(sed -n 's/^measure: \([0-9.]*\) steps\/s.*/\1/p' "$out/$name.txt")
  fps=$(sed -n 's/^measure: [0-9]* frames: \([0-9.]*\) fps.*/\1/p' "$out/$name.txt")
  busy=$(sed -n 's/.*stepping \([0-9.]*\)% of the time.*/\1/p' "$out/$name.txt")
  path=$(sed -n 's/^measure: upload path \(.*\), .*/\1/p' "$out/$name.txt")
  echo "$sps $fps $busy ${path// /_}"
}

# measure_median NAME [record options]: measure GOAL_REPEAT times (default 3) and keep the
# run of the median steps/s (the goal rows: one run's spread is about +-0.6%).
measure_median() {
  local name=$1; shift
  local k runs=()
  for ((k = 1; k <= ${GOAL_REPEAT:-3}; ++k)); do runs+=("$(measure "$name-$k" "$@")") || return 1; done
  printf "%s\n" "${runs[@]}" | sort -n -k1,1 | sed -n "$(((${#runs[@]} + 1) / 2))p"
  printf "%s: %s\n" "$name" "$(printf "%s " "${runs[@]%% *}")" >>"$out/goal-runs.txt"
}

rows=()
# row LABEL BENCH_STEPS_PER_S MEASURE_FIELDS [info]: "info" rows are shown but not held to the goal.
row() {
  local label=$1 bench=$2 sps fps busy path
  read -r sps fps busy path <<<"$3"
  local ratio verdict
  ratio=$(awk -v a="$sps" -v b="$bench" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')
  verdict=$(awk -v r="$ratio" -v f="$fps" 'BEGIN { print (r >= 0.95 && f >= 59) ? "ok" : "BELOW GOAL" }')
  if [[ ${4:-} == info ]]; then verdict="(info: $verdict)"; else [[ $verdict == ok ]] || status=1; fi
  rows+=("$(printf "%-40s %12s %12s %7s %8s %9s  %-34s %s" "$label" "$bench" "$sps" "$ratio" "$fps" "$busy" "$path" "$verdict")")
}

# case_info_rows LABEL BENCH NAME [record options]: the rows every case shows for
# information: each forced CUDA-GL path, unpaced (vsync off), and where a frame's cost
# goes (without the drawing, and without the uploads too).
case_info_rows() {
  local label=$1 bench=$2 name=$3
  shift 3
  interop=map
  row "$label, map path" "$bench" "$(measure "$name-map" "$@")" info
  interop=external
  row "$label, external path" "$bench" "$(measure "$name-external" "$@")" info
  interop=
  row "$label, unpaced" "$bench" "$(measure "$name-unpaced" "$@" --display-hz 0)" info
  row "$label, no drawing" "$bench" "$(measure "$name-nodraw" "$@" --no-draw)" info
  row "$label, no drawing, no uploads" "$bench" "$(measure "$name-bare" "$@" --no-draw --draw-every 1000000)" info
}

# The goal rows are paced as the window is by vsync on a 60 Hz display (--display-hz 60,
# the default); the unpaced rows (vsync off) show what each frame costs the GPU.
b2=$(bench_steps_per_s bench-heat2d-4096 heat2d stream 50 --size 4096) || status=1
b2_long=$(bench_steps_per_s bench-heat2d-4096-long heat2d stream 1000 --size 4096) || status=1
row "heat2d 4096^2 stream" "$b2" "$(measure_median measure-heat2d-4096 --size 4096 --variant stream)"
row "heat2d 4096^2 stream, panels on" "$b2" "$(measure_median measure-heat2d-4096-ui --size 4096 --variant stream --ui)"
for ms in ${BUDGETS:-}; do  # other adaptive batch lengths (--frame-budget; the default is 10 ms)
  row "heat2d 4096^2 stream, $ms ms batches" "$b2" "$(measure_median measure-heat2d-4096-b$ms --size 4096 --variant stream --frame-budget "$ms")" info
done
all_rows() { [[ ${ROWS:-all} == all ]]; }
if all_rows; then
  row "heat2d 4096^2 stream, 640x360 frames" "$b2" "$(measure measure-heat2d-4096-small --size 4096 --variant stream --width 640 --height 360)" info
  row "heat2d 4096^2 stream, host copy" "$b2" "$(measure measure-heat2d-4096-host --size 4096 --variant stream --upload host-copy)" info
  case_info_rows "heat2d 4096^2 stream" "$b2" measure-heat2d-4096 --size 4096 --variant stream
  probe=gl-clear-only
  row "heat2d 4096^2 stream, no drawing, a GL clear" "$b2" "$(measure measure-heat2d-4096-clear --size 4096 --variant stream --no-draw)" info
  probe=
  probe=gl-clear-only,gl-flush
  row "heat2d 4096^2 stream, no drawing, a GL clear, flushed" "$b2" "$(measure measure-heat2d-4096-clear-flush --size 4096 --variant stream --no-draw)" info
  probe=gl-flush
  row "heat2d 4096^2 stream, flushed, not finished" "$b2" "$(measure measure-heat2d-4096-flush --size 4096 --variant stream)" info
  row "heat2d 4096^2 stream, panels on, flushed" "$b2" "$(measure measure-heat2d-4096-flush-ui --size 4096 --variant stream --ui)" info
  probe=gl-on-idle
  row "heat2d 4096^2 stream, GL on an idle GPU" "$b2" "$(measure measure-heat2d-4096-idle --size 4096 --variant stream)" info
  probe=
  for probe in ${PROBES:-}; do
    row "heat2d 4096^2 stream, probe $probe" "$b2" "$(measure measure-heat2d-4096-$probe --size 4096 --variant stream)" info
  done
  probe=
fi
if [[ ${VARIANT_ROWS:-0} == 1 ]]; then
  if ! all_rows; then  # the stream kernel's rows to compare with
    row "heat2d 4096^2 stream, no drawing, no uploads" "$b2" "$(measure measure-heat2d-4096-bare --size 4096 --variant stream --no-draw --draw-every 1000000)" info
    probe=gl-clear-only
    row "heat2d 4096^2 stream, no drawing, a GL clear" "$b2" "$(measure measure-heat2d-4096-clear --size 4096 --variant stream --no-draw)" info
    probe=
  fi
  bg=$(bench_steps_per_s bench-heat2d-4096-global heat2d global 50 --size 4096) || status=1
  row "heat2d 4096^2 global, no drawing, no uploads" "$bg" "$(measure measure-heat2d-4096-global-bare --size 4096 --variant global --no-draw --draw-every 1000000)" info
  probe=gl-clear-only
  row "heat2d 4096^2 global, no drawing, a GL clear" "$bg" "$(measure measure-heat2d-4096-global-clear --size 4096 --variant global --no-draw)" info
  probe=
  row "heat2d 4096^2 global, shared path" "$bg" "$(measure measure-heat2d-4096-global --size 4096 --variant global)" info
fi
b3=$(bench_steps_per_s bench-heat3d-256 heat3d stream25d 50 --size 256) || status=1
b3_long=$(bench_steps_per_s bench-heat3d-256-long heat3d stream25d 1000 --size 256) || status=1
row "heat3d 256^3 stream25d" "$b3" "$(measure_median measure-heat3d-256 --model heat3d --size 256 --variant stream25d)"
row "heat3d 256^3 stream25d, panels on" "$b3" "$(measure_median measure-heat3d-256-ui --model heat3d --size 256 --variant stream25d --ui)"
for ms in ${BUDGETS:-}; do
  row "heat3d 256^3 stream25d, $ms ms batches" "$b3" "$(measure_median measure-heat3d-256-b$ms --model heat3d --size 256 --variant stream25d --frame-budget "$ms")" info
done
if all_rows; then
  case_info_rows "heat3d 256^3 stream25d" "$b3" measure-heat3d-256 --model heat3d --size 256 --variant stream25d
  for probe in ${PROBES:-}; do
    row "heat3d 256^3 stream25d, probe $probe" "$b3" "$(measure measure-heat3d-256-$probe --model heat3d --size 256 --variant stream25d)" info
  done
  probe=
fi

nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1
printf "%-40s %12s %12s %7s %8s %9s  %-34s %s\n" "case (order 8, float)" "bench st/s" "window st/s" "ratio" "fps" "stepping%" "upload path" "goal: ratio>=0.95, fps>=60 (59: timer slack)"
printf "%s\n" "${rows[@]}"
echo "bench over 1000 steps (median of 5), for comparison: heat2d $b2_long, heat3d $b3_long steps/s"
echo "goal rows, steps/s of each run (the median is shown):"; cat "$out/goal-runs.txt"
grep -H "GL GPU time" "$out"/measure-*.txt | sed 's|.*/measure-||'
exit $status
