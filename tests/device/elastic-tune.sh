#!/usr/bin/env bash
# elastic3d stream25d round on one GPU machine (H100, sm_90), in one device call: build
# (no GUI) the program and test_elastic3d_gpu, the GPU tests (stream25d's float cases again with the
# 32 x 16 tile), the kernel's registers, stack and shared memory, the issue's benchmarks
# (512^3 and 256^3, order 8, float, 5 steps; stream25d with both tiles), compute-sanitizer
# memcheck and racecheck on stream25d at 45x37x29, 2 steps (every boundary word, float and
# double), and a short table last. Logs and JSON in $OUT (or ./out).
#   tests/device/elastic-tune.sh [quick]     quick: no 512^3 rows, memcheck only
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" --target stencilscope test_elastic3d_gpu >"$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
e=$b/bin/stencilscope
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"

# Registers, stack (local memory) and static shared memory of the stream25d kernels.
cuobjdump --dump-resource-usage $e 2>/dev/null | grep -A1 "elastic3d_stream25d" | grep -E "Function|REG" |
  paste - - | sed -E 's/.*stream25dI(.)Li(.)ELi([0-9]+)ELi([0-9]+)E.*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+).*/\1 R\2 \3x\4: \5 registers, stack \6, static shared \7/' |
  tee "$out/resources.txt"
[[ -s $out/resources.txt ]] || echo "cuobjdump: no stream25d resource usage found (ptxas figures are in docs/elastic3d.md)"

# The GPU tests; stream25d's float cases again on the 32 x 16 tile (the variable is read once per process).
timeout 150 $b/bin/test_elastic3d_gpu >"$out/test-gpu.log" 2>&1 || status=1
echo "test_elastic3d_gpu: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/test-gpu.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]" "$out/test-gpu.log" | head -8
STENCILSCOPE_ELASTIC_TILE=32x16 timeout 90 $b/bin/test_elastic3d_gpu --gtest_filter='*Stream25d*Float*:*Live*:*OddSizeFloat*order8_free*' \
  >"$out/test-gpu-32x16.log" 2>&1 || status=1
echo "test_elastic3d_gpu (32x16, float): $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/test-gpu-32x16.log" | tr '\n' ' ')"

# Benchmarks: every GPU variant, then stream25d on the other tile.
bench() { local name=$1; shift; timeout 150 env "${envs[@]}" $e bench elastic3d "$@" --json "$out/$name.json" \
  >"$out/$name.txt" 2>&1 || { status=1; echo "bench $name failed: $(tail -2 "$out/$name.txt" | tr '\n' ' ')"; }; }
sizes="512 256"
[[ ${1:-} == quick ]] && sizes=256
for n in $sizes; do
  envs=(STENCILSCOPE_ELASTIC_TILE=32x8); bench "e$n" --size $n --order 8 --steps 5 --repeat 3 --device gpu
  envs=(STENCILSCOPE_ELASTIC_TILE=32x16); bench "e$n-32x16" --size $n --order 8 --steps 5 --repeat 3 --variant stream25d
done
envs=(STENCILSCOPE_ELASTIC_TILE=32x8)
bench e256-double --size 256 --order 8 --steps 5 --repeat 3 --device gpu --precision double

# compute-sanitizer on stream25d: every boundary word (periodic, periodic_sides and cpml step
# as fused), float and double, 45x37x29, order 8, 2 steps.
tools="memcheck racecheck"
[[ ${1:-} == quick ]] && tools=memcheck
SANITIZE_MODELS=elastic3d SANITIZE_VARIANTS=stream25d SANITIZE_JOBS=8 tests/device/sanitize.sh $b $tools \
  >"$out/sanitize.txt" 2>&1 || status=1
grep -vE "^\s*$" "$out/sanitize.txt" | grep -vE "^clean" | tail -8

# The table: ms per run, GB/s of the least traffic (60 B per node in float), the copy
# ratio, the speed-up over steps, bitwise equality with the first row (steps).
python3 - "$out" $sizes <<'PY'
import json, os, sys
out, sizes = sys.argv[1], sys.argv[2:]
print(f"{'run':<18}{'variant':<11}{'ms':>9}{'GB/s':>9}{'copy':>7}{'x steps':>9}  bitwise")
def rows(name):
    p = os.path.join(out, name + ".json")
    if not os.path.exists(p): return []
    d = json.load(open(p))
    return d.get("rows", d.get("results", [])) if isinstance(d, dict) else d
for name in [f"e{n}{t}" for n in sizes for t in ("", "-32x16")] + ["e256-double"]:
    steps_ms = {r.get("variant"): r.get("time_ms") for r in rows(name.replace("-32x16", ""))}.get("steps")
    for r in rows(name):
        if r.get("device") != "gpu": continue
        ms = r.get("time_ms") or 0
        speed = f"{steps_ms / ms:.2f}" if steps_ms and ms else "-"
        bit = r.get("bitwise_equal")
        print(f"{name:<18}{r.get('variant',''):<11}{ms:>9.2f}{r.get('bandwidth_gbps') or 0:>9.0f}"
              f"{r.get('copy_ratio') or 0:>7.3f}{speed:>9}  {'-' if bit is None else bit}")
PY
exit $status
