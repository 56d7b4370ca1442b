#!/usr/bin/env bash
# Issue 18 item 1 in one device call (docs/sanitizer.md, "racecheck on stream25d"):
#  1. tests/device/mbarrier-ring.cu, every mode that tells something: plain (wrong sums),
#     under racecheck (hazards) and under synccheck (errors); one line per mode. Modes 0-9
#     are the minimal ring, 10-18 stream25d's tile ring with one more of its features each.
#  2. tests/device/l2hint-copy.cu (cp.async with an L2::cache_hint alone): does it fault;
#     and the SASS descriptors (tests/device/sass-desc.py) of it, of the tile ring and of
#     stream25d with every ring copy hinted (docs/perf.md's "illegal instruction"; the
#     hinted variant is made from the shipped header here, in $OUT, and only compiled).
#  3. The project (GUI off, sm_90, build-gpu-nogui): the 36 heat3d GPU tests, sanitize.sh
#     racecheck + synccheck on heat3d stream25d, racecheck's first reports (file:line of
#     both accesses), and racecheck on grids of whole tiles in both tile shapes.
# Logs in $OUT/race (or ./out/race). About 3 minutes on an H100 with a warm build.
#   tests/device/race-check.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
log=$out/race
mkdir -p "$log"
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log/device.txt"
nvcc --version | tail -1
jobs=$(nproc)

# The project build runs while the small programs are built and run.
(
  [[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90-real >"$log/cfg.log" 2>&1 || exit 1
  cmake --build $b --target stencilscope test_heat3d_gpu --parallel "$jobs" >"$log/build.log" 2>&1
) &
build_pid=$!

flags=(-std=c++17 -O2 -arch=sm_90 -lineinfo)
nvcc "${flags[@]}" -o "$log/ring" tests/device/mbarrier-ring.cu &
small=($!)
nvcc "${flags[@]}" -DRING_SLOTS=9 -DRING_AHEAD=4 -o "$log/ring9" tests/device/mbarrier-ring.cu &
small+=($!)
nvcc "${flags[@]}" -DRING_SLOTS=9 -DRING_AHEAD=8 -o "$log/ring98" tests/device/mbarrier-ring.cu &
small+=($!)
nvcc "${flags[@]}" -o "$log/l2hint" tests/device/l2hint-copy.cu &
small+=($!)
# stream25d with every ring copy L2-hinted (one createpolicy evict_first for the kernel),
# compiled only: its SASS is what docs/perf.md recorded.
rm -rf "$log/hinttree" && mkdir -p "$log/hinttree" && cp -r sim "$log/hinttree/"
python3 - "$log/hinttree/sim/models/heat3d/heat3d_stream25d.cuh" <<'PY' || echo "hinted stream25d: the patch no longer applies"
import sys
p = sys.argv[1]
s = open(p).read()
copy = "        if (dst_slot[n] >> kFillShift == kFillCopy) __pipeline_memcpy_async(to, a.in + src[n] + zoff, 16);\n"
hinted = ("        if (dst_slot[n] >> kFillShift == kFillCopy)\n"
          "          asm volatile(\"cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\" ::\"r\"(shared_address(to)), \"l\"(a.in + src[n] + zoff), \"l\"(hint_policy) : \"memory\");\n")
start = "  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TXT + tx;\n"
policy = "  std::uint64_t hint_policy;\n  asm(\"createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\" : \"=l\"(hint_policy));\n"
assert copy in s and start in s
open(p, "w").write(s.replace(copy, hinted).replace(start, start + policy))
PY
nvcc -I"$log/hinttree" -O3 -DNDEBUG -arch=sm_90 -cubin --expt-relaxed-constexpr -std=c++20 -x cu \
  "$log/hinttree/sim/models/heat3d/heat3d_device.cu" -o "$log/heat3d_hinted.cubin" >"$log/hinted-build.log" 2>&1 &
hinted_pid=$!
wait "${small[@]}"
[[ -x $log/ring && -x $log/ring9 && -x $log/ring98 && -x $log/l2hint ]] || { echo "race-check: the small programs did not build"; exit 1; }

# ---- 1. The rings ----------------------------------------------------------------
# name, binary, plain arguments, tool arguments (fewer runs and blocks: racecheck is slow)
cat >"$log/ring-cases.txt" <<'EOF'
ring 0 (stream25d's protocol, 16 warps, 8 other warps read, early)	ring	0 50 512 8 1	0 1 512 8 1 32
ring 3 (every empty phase waited)	ring	3 50 512 8 1	3 1 512 8 1 32
ring 6 (libcu++ barrier + memcpy_async)	ring	6 50 512 8 1	6 1 512 8 1 32
ring 9 (dynamic ring, static barriers)	ring	9 50 512 8 1	9 1 512 8 1 32
ring9 3 (ring of 9 fetched 4 ahead)	ring9	3 50 512 8 1	3 1 512 8 1 32
ring9 9 (ring of 9, dynamic)	ring9	9 50 512 8 1	9 1 512 8 1 32
tile 10 (stream25d tile ring: copies only, no x halo)	ring	10 20 512 1 0 132	10 1 512 1 0 8
tile 11 (+ x-halo packs fetched by other rows)	ring	11 20 512 1 0 132	11 1 512 1 0 8
tile 11 (8 rows, 256 threads)	ring	11 20 256 1 0 132	11 1 256 1 0 8
tile 11 (partial tile: 100 of 128 columns read)	ring	11 20 512 1 0 132 100	11 1 512 1 0 8 100
tile 12 (+ plain stores: fixed packs)	ring	12 20 512 1 0 132	12 1 512 1 0 8
tile 13 (+ __noinline__ mixed duties)	ring	13 20 512 1 0 132	13 1 512 1 0 8
tile 14 (plain stores and __noinline__ duties)	ring	14 20 512 1 0 132	14 1 512 1 0 8
tile 15 (mode 11, every copy L2-hinted)	ring	15 20 512 1 0 132	15 1 512 1 0 8
tile 16 (mode 11, unrolled steps: constant slots)	ring	16 20 512 1 0 132	16 1 512 1 0 8
tile 17 (mode 14, unrolled steps)	ring	17 20 512 1 0 132	17 1 512 1 0 8
tile 18 (mode 15, unrolled steps: hinted, UR0 unwritten)	ring	18 20 512 1 0 132	18 1 512 1 0 8
tile 19 (mode 10 without the queue's early read)	ring	19 20 512 1 0 132	19 1 512 1 0 8
ring98 3 early 1 (ring of 9 fetched 8 ahead, read 1 plane early)	ring98	3 50 512 8 1	3 1 512 8 1 32
ring98 3 early 4 (read 4 planes early, as stream25d's queue)	ring98	3 50 512 8 4	3 1 512 8 4 32
ring98 3 early 4, no other warps' reads	ring98	3 50 512 0 4	3 1 512 0 4 32
ring98 7 early 4 (every thread arrives, no __syncwarp)	ring98	7 50 512 8 4	7 1 512 8 4 32
tile 20 (mode 10, every thread arrives on empty)	ring	20 20 512 1 0 132	20 1 512 1 0 8
tile 21 (mode 14, every thread arrives on empty)	ring	21 20 512 1 0 132	21 1 512 1 0 8
EOF
# RACE_CASES=REGEX keeps the cases whose name matches; RACE_RINGS_ONLY=1 stops after the rings
# and the hinted copies (no project build).
if [[ -n ${RACE_CASES:-} ]]; then grep -E "$RACE_CASES" "$log/ring-cases.txt" >"$log/ring-cases.sel"; mv "$log/ring-cases.sel" "$log/ring-cases.txt"; fi
ring_case() {
  local idx=$1 name=$2 bin=$3 plain=$4 tool=$5
  local tag; tag=$(tr -c 'a-zA-Z0-9\n' '_' <<<"$name" | cut -c1-48)
  local p rc r s
  p=$(timeout 120 "$log/$bin" $plain 2>&1 | tail -1)
  compute-sanitizer --tool racecheck --racecheck-report all --print-limit 20 "$log/$bin" $tool >"$log/$tag-racecheck.log" 2>&1
  r=$(grep -oE "RACECHECK SUMMARY: [0-9]+ hazard" "$log/$tag-racecheck.log" | grep -oE "[0-9]+" || echo "?")
  s=-
  if [[ -z ${RACE_NO_SYNCCHECK:-} ]]; then  # RACE_NO_SYNCCHECK=1: racecheck only (synccheck's "Missing wait" is known)
    compute-sanitizer --tool synccheck --print-limit 20 "$log/$bin" $tool >"$log/$tag-synccheck.log" 2>&1
    s=$(grep -oE "ERROR SUMMARY: [0-9]+ error" "$log/$tag-synccheck.log" | grep -oE "[0-9]+" || echo "?")
  fi
  local what; what=$(grep -m1 -oE "Barrier error detected\. [A-Za-z ]+" "$log/$tag-synccheck.log")
  local wrong; wrong=$(grep -oE "[0-9]+ wrong sums, .*" <<<"$p" || echo "$p")
  printf '%s\t%-56s plain: %-30s racecheck: %3s hazards   synccheck: %3s errors %s\n' "$idx" "$name" "$wrong" "$r" "$s" "${what:+($what)}"
}
export -f ring_case
export log
i=0
while IFS=$'\t' read -r name bin plain tool; do
  i=$((i + 1)); printf '%s\0%s\0%s\0%s\0%s\0' "$i" "$name" "$bin" "$plain" "$tool"
done <"$log/ring-cases.txt" | xargs -0 -n5 -P 6 bash -c 'ring_case "$@"' _ >"$log/rings.txt"
echo "== the rings (plain run | racecheck | synccheck), $((SECONDS - t0)) s"
sort -n "$log/rings.txt" | cut -f2-
for f in "$log"/tile_*-racecheck.log; do  # the first report of any tile mode that has one
  grep -q "Race reported" "$f" && { echo "-- first report, $(basename "$f")"; grep -m1 -A3 "Race reported" "$f"; }
done

# ---- 2. L2-hinted cp.async ---------------------------------------------------------
echo "== L2::cache_hint cp.async"
timeout 60 "$log/l2hint" 2>&1 | tail -3
wait $hinted_pid
if command -v cuobjdump >/dev/null; then
  for bin in "$log/l2hint" "$log/ring"; do cuobjdump -sass "$bin" | python3 tests/device/sass-desc.py | sed 's/^/sass: /'; done
  if [[ -f $log/heat3d_hinted.cubin ]]; then
    cuobjdump -sass "$log/heat3d_hinted.cubin" >"$log/heat3d_hinted.sass"
    python3 tests/device/sass-desc.py <"$log/heat3d_hinted.sass" >"$log/heat3d_hinted-desc.txt"
    echo "sass: stream25d with hinted ring copies: $(grep -c 'NEVER WRITTEN' "$log/heat3d_hinted-desc.txt") of $(wc -l <"$log/heat3d_hinted-desc.txt") kernels with LDGSTS name a descriptor nothing writes"
    grep -m2 "NEVER" "$log/heat3d_hinted-desc.txt" | cut -c1-220
    grep -m3 -E "LDGSTS.*desc\[UR[01]\]" "$log/heat3d_hinted.sass" | sed 's/^ */sass line: /' | cut -c1-160
  else
    echo "hinted stream25d did not compile: $(tail -3 "$log/hinted-build.log")"
  fi
else
  echo "no cuobjdump on this machine: SASS not checked"
fi

# ---- 3. The project ------------------------------------------------------------------
if [[ -n ${RACE_RINGS_ONLY:-} ]]; then kill $build_pid 2>/dev/null; echo "race-check: rings only, $((SECONDS - t0)) s"; exit 0; fi
wait $build_pid || { echo "build failed after $((SECONDS - t0)) s:"; grep -E "error|FAILED" -A5 "$log/build.log" | head -30; exit 1; }
echo "== project built, $((SECONDS - t0)) s"
status=0
timeout 300 $b/bin/test_heat3d_gpu >"$log/test_heat3d_gpu.log" 2>&1 || status=1
echo "test_heat3d_gpu: $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$log/test_heat3d_gpu.log" | tr '\n' ' ')"
# Grids of whole tiles (128x32x29: 1 x 2 tiles of 16 rows, 4 of 8 rows), periodic and analytic, both tile shapes.
whole() {
  local shape=$1 rule=$2 f="$log/whole-$1-$2.log"
  STENCILSCOPE_STREAM25=$shape compute-sanitizer --tool racecheck --racecheck-report all --print-limit 20 \
    $b/bin/stencilscope bench heat3d --variant stream25d --device gpu --size 128x32x29 --order 8 --steps 2 --repeat 1 \
    --precision float --param boundary=$rule >"$f" 2>&1
  echo "racecheck stream25d 128x32x29 float $rule, tile $shape: $(grep -oE 'RACECHECK SUMMARY: .*' "$f")"
}
whole 16x9 periodic >"$log/whole1.txt" &
whole 8x8 periodic >"$log/whole2.txt" &
whole 16x9 analytic >"$log/whole3.txt" &
SANITIZE_MODELS=heat3d SANITIZE_VARIANTS=stream25d SANITIZE_JOBS=8 tests/device/sanitize.sh $b racecheck synccheck >"$log/sanitize.txt" 2>&1 || status=1
wait
echo "== sanitize.sh heat3d stream25d racecheck synccheck, $((SECONDS - t0)) s"
grep -vE "^\s*$" "$log/sanitize.txt" | tail -17
cat "$log"/whole?.txt
echo "== racecheck's first reports on stream25d (both accesses)"
for f in "$out"/sanitize/racecheck-heat3d-stream25d-float-defaults.log "$out"/sanitize/racecheck-heat3d-stream25d-double-defaults.log "$log/whole-16x9-periodic.log"; do
  [[ -f $f ]] && grep -q "Race reported" "$f" && { echo "-- $(basename "$f")"; grep -m2 -A3 "Race reported" "$f" | cut -c1-300; }
done
echo "race-check: $((SECONDS - t0)) s"
exit $status
