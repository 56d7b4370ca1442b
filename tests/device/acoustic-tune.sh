#!/usr/bin/env bash
# acoustic3d's GPU variants on one GPU machine, in one device call (issue 23, item 9; about
# 3-4 minutes on an H100, most of it the build): build stencilscope and test_acoustic3d_gpu
# (GUI off, sm_90), run test_acoustic3d_gpu (every variant and stream25d shape against the
# cpu variant bit for bit, on odd sizes), compute-sanitizer memcheck and racecheck on it at
# its small odd size (37x29x23), then one table of copy ratios: 512^3 and 256^3, order 8
# and 4, float, sponge (the default: width 20, free top) and cpml, for `global` and for
# stream25d in every shape (STENCILSCOPE_ACOUSTIC25=all). The double reference is skipped
# for speed (STENCILSCOPE_BENCH_NO_REFERENCE): the tests check the values; a `!` after a
# ratio marks a row whose field differs bitwise from global's. Logs and JSON in $OUT.
#   tests/device/acoustic-tune.sh [quick]      quick: 256^3 only, no racecheck
#   SLABS="128 256" also times packed16 at 512^3 order 8 with slabs of about that many planes.
#   BLOCK_SYNC=1 also runs racecheck on a block-synchronous build of the ring (see below).
set -uo pipefail
source "$(dirname "$0")/env.sh"
start=$SECONDS
b=${BUILD:-build-acoustic-tune}
phase() { echo "-- $1 ($((SECONDS - start)) s)"; }
[[ -f $b/build.ninja ]] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; exit 1; }
cmake --build $b --parallel "$(nproc)" --target stencilscope test_acoustic3d_gpu >"$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
phase built
e=$b/bin/stencilscope
t=$b/bin/test_acoustic3d_gpu
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"

$t >"$out/test.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/test.log" | head -20
phase tested

# The sanitizer on odd-size cases (37x29x23) of order 8 and 4, float and double, every GPU
# variant and stream25d shape in each (racecheck: two of them; exit 124: it ran out of time).
cases='OrdersAndBoundaries/Acoustic3DGpu.*/order8_sponge_free:OrdersAndBoundaries/Acoustic3DGpu.*/order8_periodic_random'
cases+=':OrdersAndBoundaries/Acoustic3DGpu.*/order8_cpml_free_layered:OrdersAndBoundaries/Acoustic3DGpu.*/order4_sponge_free'
race='OrdersAndBoundaries/Acoustic3DGpu.OddSizeFloat*/order8_sponge_free:OrdersAndBoundaries/Acoustic3DGpu.OddSizeDouble*/order8_periodic_random'
tools=(memcheck racecheck)
[[ ${1:-} == quick ]] && tools=(memcheck)
for tool in "${tools[@]}"; do
  filter=$cases
  flags=(--tool "$tool" --error-exitcode 9 --print-limit 50)
  [[ $tool == racecheck ]] && filter=$race && flags+=(--racecheck-report all)
  timeout 150 compute-sanitizer "${flags[@]}" $t --gtest_filter="$filter" >"$out/sanitize-$tool.log" 2>&1
  rc=$?
  [[ $rc -ne 0 ]] && status=1
  echo "sanitize $tool: exit $rc; $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitize-$tool.log" | tail -1)" \
       "$(grep -E "^\[  (PASSED|FAILED) " "$out/sanitize-$tool.log" | tr '\n' ' ')"
  grep -E "^========= (Error|Race|Barrier|Invalid|Uninitialized|Warning)" "$out/sanitize-$tool.log" | sort | uniq -c | head -3
  phase "$tool"
done
# BLOCK_SYNC=1: racecheck again on a build whose stream25d rings (heat3d's and this one)
# sync the block per plane instead of the mbarriers (STENCILSCOPE_STREAM25_BLOCK_SYNC,
# docs/sanitizer.md): tells a protocol race from a report on the mbarrier form. ~2 min more.
if [[ ${BLOCK_SYNC:-0} == 1 ]]; then
  bs=$b-blocksync
  { [[ -f $bs/build.ninja ]] || cmake -S . -B $bs -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_FLAGS=-DSTENCILSCOPE_STREAM25_BLOCK_SYNC; } >"$out/cfg-blocksync.log" 2>&1 &&
    cmake --build $bs --parallel "$(nproc)" --target test_acoustic3d_gpu >"$out/build-blocksync.log" 2>&1 &&
    compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 --print-limit 50 $bs/bin/test_acoustic3d_gpu \
      --gtest_filter="$race" >"$out/sanitize-racecheck-blocksync.log" 2>&1
  echo "racecheck, block-synchronous ring: exit $?; $(grep -E "RACECHECK SUMMARY" "$out/sanitize-racecheck-blocksync.log" | tail -1)"
  phase "block-sync racecheck"
fi

sizes="512 256"
[[ ${1:-} == quick ]] && sizes=256
for size in $sizes; do
  for order in 8 4; do
    for boundary in sponge cpml; do
      name=bench-$size-$order-$boundary
      STENCILSCOPE_ACOUSTIC25=all STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 120 $e bench acoustic3d --size $size \
        --order $order --steps 10 --repeat 3 --device gpu --param boundary=$boundary --json "$out/$name.json" \
        >"$out/$name.txt" 2>&1 || { status=1; echo "bench $size $order $boundary failed: $(tail -2 "$out/$name.txt")"; }
    done
  done
done
for slab in ${SLABS:-}; do
  STENCILSCOPE_ACOUSTIC25_SLAB=$slab STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 120 $e bench acoustic3d --size 512 \
    --order 8 --steps 10 --repeat 3 --device gpu --variant stream25d --json "$out/bench-slab$slab.json" \
    >"$out/bench-slab$slab.txt" 2>&1 || status=1
done
phase benched
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
table, names = [], []
def key(path):
    c = json.load(open(path))["config"]
    return (-c["nx"], -c["order"], c["boundary"] != "sponge", path)
for path in sorted(glob.glob(os.path.join(out, "bench-*.json")), key=key):
    d = json.load(open(path))
    c = d["config"]
    label = f"{c['nx']}^3 o{c['order']} {c['boundary']}"
    if "slab" in os.path.basename(path):
        label += " slab " + os.path.basename(path)[len("bench-slab"):-len(".json")]
    cells = {}
    for r in d["rows"]:
        if r.get("copy_ratio") is None:
            cells[r["variant"]] = "skip"
            continue
        mark = "!" if r.get("bitwise_equal") is False else ""
        cells[r["variant"]] = f"{r['copy_ratio']:.3f}{mark}"
        if r["variant"] not in names:
            names.append(r["variant"])
    table.append((label, cells, d.get("copy_gbps") or 0))
short = [n.replace("stream25d/", "s25/") for n in names]
print("copy ratios (float, 10 steps, median of 3; copy kernel GB/s last)")
print(f"{'case':<22}" + "".join(f"{s:>18}" for s in short) + f"{'copy GB/s':>11}")
for label, cells, copy in table:
    print(f"{label:<22}" + "".join(f"{cells.get(n, '-'):>18}" for n in names) + f"{copy:>11.0f}")
PY
phase done
exit $status
