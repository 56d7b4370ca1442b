#!/usr/bin/env bash
# elastic3d register25d round on one GPU machine (H100, sm_90), in one device call of at most
# 6 minutes, the measurements first: build (no GUI, sm_90 only) the program and
# test_elastic3d_gpu; the streaming kernels' registers, stack and shared memory; the issue's
# benchmark (512^3, order 8, float, 5 steps: every GPU variant on the 32 x 8 tile, then
# register25d on 32 x 16, the default, and on 32 x 16 with its plane loop unrolled by 2,
# STENCILSCOPE_ELASTIC_UNROLL=2) and its table; the GPU tests (the streaming kernels' own cases
# and the live test first, the 32 x 16 tile on the float ones, then all); compute-sanitizer
# memcheck and racecheck on register25d (45x37x29, every boundary word, float and double);
# 256^3 as 512^3 and the table again. A stage that would start past $ELASTIC_DEADLINE seconds
# (default 300) is skipped and says so. Logs and JSON in $OUT (or ./out).
#   tests/device/elastic-register.sh            the round above
#   tests/device/elastic-register.sh profile    after the same build: Nsight Compute on
#       register25d (32 x 8 and 32 x 16) and stream25d (32 x 8) at 256^3, order 8, float
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
deadline=${ELASTIC_DEADLINE:-300}
status=0
in_time() { ((SECONDS < deadline)) || { echo "skipped (past ${deadline} s): $*"; return 1; }; }
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" --target stencilscope test_elastic3d_gpu >"$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
echo "built in ${SECONDS} s"
e=$b/bin/stencilscope
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"

if [[ ${1:-} == profile ]]; then
  profile() { local name=$1 tile=$2 variant=$3
    STENCILSCOPE_ELASTIC_TILE=$tile timeout 150 ncu --kernel-name "regex:elastic3d_${variant}" --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis \
      $e bench elastic3d --size 256 --order 8 --steps 1 --repeat 1 --variant "$variant" >"$out/ncu-$name.txt" 2>&1
    echo "== $name"
    grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Dynamic Shared|Block Limit (Registers|Shared)|Warp Cycles Per Issued|Issued Warp|No Eligible|Shared Memory|Mem Pipes Busy|Executed Ipc A" \
      "$out/ncu-$name.txt" | head -30; }
  in_time "profile register25d 32x8" && profile register25d-32x8 32x8 register25d
  in_time "profile register25d 32x16" && profile register25d-32x16 32x16 register25d
  in_time "profile stream25d 32x8" && profile stream25d-32x8 32x8 stream25d
  exit 0
fi

# Registers, stack (local memory) and static shared memory of the streaming kernels.
cuobjdump --dump-resource-usage $e 2>/dev/null | grep -A1 -E "elastic3d_(stream|register)25d" | grep -E "Function|REG" |
  paste - - | sed -E 's/.*elastic3d_(stream|register)25d(_pairs)?I(.)Li(.)ELi([0-9]+)ELi([0-9]+)E.*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+).*/\125d\2 \3 R\4 \5x\6: \7 registers, stack \8, static shared \9/' |
  sort | tee "$out/resources.txt" | grep -E " R4 "
[[ -s $out/resources.txt ]] || echo "cuobjdump: no resource usage found"

# The table: ms per run, GB/s of the least traffic (60 B per node in float), the copy ratio,
# the speed-up over steps, G node updates a second, bitwise equality with the first row (steps).
table() { python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print(f"{'run':<14}{'variant':<13}{'ms':>9}{'GB/s':>9}{'copy':>7}{'x steps':>9}{'Gnode/s':>9}  bitwise")
def rows(name):
    p = os.path.join(out, name + ".json")
    if not os.path.exists(p): return []
    d = json.load(open(p))
    return d.get("rows", []) if isinstance(d, dict) else d
for name in ["e512", "e512-32x16", "e512-unroll2", "e256", "e256-32x16", "e256-unroll2"]:
    steps_ms = {r.get("variant"): r.get("time_ms") for r in rows(name.split("-")[0])}.get("steps")
    for r in rows(name):
        if r.get("device") != "gpu": continue
        ms = r.get("time_ms") or 0
        speed = f"{steps_ms / ms:.2f}" if steps_ms and ms else "-"
        rate = f"{(r.get('mcups') or 0) / 1e3:.1f}"
        bit = r.get("bitwise_equal")
        print(f"{name:<14}{r.get('variant',''):<13}{ms:>9.2f}{r.get('bandwidth_gbps') or 0:>9.0f}"
              f"{r.get('copy_ratio') or 0:>7.3f}{speed:>9}{rate:>9}  {'-' if bit is None else bit}")
PY
}

# Benchmarks (the issue's size first): every GPU variant on 32 x 8, then register25d on 32 x 16
# (the default in float) with its plane loop as is and unrolled by 2.
bench() { local name=$1; shift; timeout 100 env "${envs[@]}" $e bench elastic3d "$@" --json "$out/$name.json" \
  >"$out/$name.txt" 2>&1 || { status=1; echo "bench $name failed: $(tail -2 "$out/$name.txt" | tr '\n' ' ')"; }; }
sizes() { local n=$1
  envs=(STENCILSCOPE_ELASTIC_TILE=32x8); bench "e$n" --size $n --order 8 --steps 5 --repeat 3 --device gpu
  envs=(STENCILSCOPE_ELASTIC_TILE=32x16); bench "e$n-32x16" --size $n --order 8 --steps 5 --repeat 3 --variant register25d
  envs=(STENCILSCOPE_ELASTIC_TILE=32x16 STENCILSCOPE_ELASTIC_UNROLL=2)
  bench "e$n-unroll2" --size $n --order 8 --steps 5 --repeat 3 --variant register25d; }
sizes 512
table
echo "benched 512^3 by ${SECONDS} s"

# The GPU tests: the streaming kernels' own cases and the live test, then the float ones on
# the 32 x 16 tile (the variable is read once per process), then every other case.
gtest() { local name=$1 t=$2; shift 2; timeout "$t" env "${envs[@]}" $b/bin/test_elastic3d_gpu "$@" >"$out/$name.log" 2>&1 ||
  status=1; echo "$name: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/$name.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \]" "$out/$name.log" | head -8; }
envs=(STENCILSCOPE_ELASTIC_TILE=32x8)
in_time "streaming tests" && gtest test-gpu-streaming 90 --gtest_filter='*Stream25d*:*Live*'
envs=(STENCILSCOPE_ELASTIC_TILE=32x16)
in_time "32x16 tests" && gtest test-gpu-32x16 60 --gtest_filter='*Stream25d*Float*:*Live*:*OddSizeFloat*order8_free*'
envs=(STENCILSCOPE_ELASTIC_TILE=32x8)
in_time "all GPU tests" && gtest test-gpu 120 --gtest_filter='-*Stream25d*:*Live*'

# compute-sanitizer on register25d: every boundary word (periodic, periodic_sides and cpml
# step as fused), float and double, 45x37x29, order 8, 2 steps.
if in_time "compute-sanitizer"; then
  SANITIZE_MODELS=elastic3d SANITIZE_VARIANTS=register25d SANITIZE_JOBS=8 tests/device/sanitize.sh $b memcheck racecheck \
    >"$out/sanitize.txt" 2>&1 || status=1
  grep -vE "^\s*$" "$out/sanitize.txt" | grep -vE "^clean" | tail -8
  echo "sanitize: $(grep -cE '^clean' "$out/sanitize.txt") clean"
fi

if in_time "bench 256"; then sizes 256; table; fi
echo "total ${SECONDS} s"
exit $status
