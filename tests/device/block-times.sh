#!/usr/bin/env bash
# Where a stream25d step's time goes between its blocks: builds a copy of the tree with
# patches/probe-block-times.patch (each block's thread 0 prints its tile, SM and
# %globaltimer at its start and end) and, for each case of BT_CASES (SIZE:RULE, heat3d
# stream25d order 8 float, 20 steps), prints per launch the span (first start to last end)
# against the blocks' own times by kind of tile: interior, x face, y face, corner (both).
# With BT_TESTS=1 the tree as it is builds test_heat3d_gpu in parallel and runs it; with
# BT_BASE=1 its stencilscope, benched after the probe in each case.
#   BT_CASES="512:analytic 512:periodic" tests/device/block-times.sh      logs in $OUT
set -uo pipefail
source "$(dirname "$0")/env.sh"
t0=$SECONDS
probe=/tmp/bt-tree
rm -rf "$probe" && mkdir -p "$probe"
tar --exclude='./build*' --exclude=./out --exclude=./.devdeps --exclude=./ab-old -cf - . | tar -C "$probe" -xf -
(cd "$probe" && patch -p1 --forward <tests/device/patches/probe-block-times.patch >/dev/null) || { echo "block-times: the probe does not apply"; exit 1; }
pids=()
base_targets=()
[[ ${BT_TESTS:-0} == 1 ]] && base_targets+=(test_heat3d_gpu)
[[ ${BT_BASE:-0} == 1 ]] && base_targets+=(stencilscope)
if ((${#base_targets[@]})); then ( build_no_gui build-gpu-nogui "${base_targets[@]}" ) & pids+=($!); fi
( cmake -S "$probe" -B "$probe/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/cfg-probe.log" 2>&1 &&
  cmake --build "$probe/build" --target stencilscope --parallel "$(nproc)" >"$out/build-probe.log" 2>&1 ) ||
  { echo "block-times: the probe did not build"; grep -m5 -A3 error "$out/build-probe.log"; } & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
echo "== built, $((SECONDS - t0)) s"
status=0
for c in ${BT_CASES:-512:analytic 512:periodic}; do
  size=${c%%:*} rule=${c#*:}
  f=$out/bt-$size-$rule.txt
  STENCILSCOPE_BENCH_NO_REFERENCE=1 "$probe/build/bin/stencilscope" bench heat3d --variant stream25d --device gpu \
    --size "$size" --order 8 --steps 20 --repeat 3 --precision float --param boundary="$rule" >"$f" 2>&1 || status=1
  echo "== $size^3 $rule: $(awk '$1 == "stream25d" { print $4 " ms, copy " $7 }' "$f" | head -1) with the probe"
  if [[ ${BT_BASE:-0} == 1 ]]; then
    STENCILSCOPE_BENCH_NO_REFERENCE=1 build-gpu-nogui/bin/stencilscope bench heat3d --variant stream25d --device gpu \
      --size "$size" --order 8 --steps 20 --repeat 3 --precision float --param boundary="$rule" >"$f.base" 2>&1
    echo "   without: $(awk '$1 == "stream25d" { print $4 " ms, copy " $7 }' "$f.base" | head -1)"
  fi
  python3 - "$f" <<'PY'
import sys, statistics as st
rows = []
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 9 and p[0] == "BT":
        bx, by, bz, tx, ty, sm = map(int, p[1:7]); rows.append((int(p[7]), int(p[8]), bx, by, bz, tx, ty, sm))
if not rows: print("  no block times"); sys.exit()
rows.sort()
launches, cur, end = [], [], 0
for r in rows:
    if cur and r[0] >= end: launches.append(cur); cur = []
    cur.append(r); end = max(end if len(cur) > 1 else 0, r[1])
launches.append(cur)
n = max(len(l) for l in launches)
full = [l for l in launches if len(l) == n][4:]  # whole launches past the warm-up
def kind(r):
    xf = r[2] in (0, r[5] - 1); yf = r[3] in (0, r[6] - 1)
    return "corner" if xf and yf else "x face" if xf else "y face" if yf else "interior"
span = [ (max(r[1] for r in l) - min(r[0] for r in l)) / 1e3 for l in full ]
print(f"  {len(full)} launches of {n} blocks; span median {st.median(span):.1f} us (min {min(span):.1f})")
per = {}
for l in full:
    t = min(r[0] for r in l)
    for r in l:
        per.setdefault(kind(r), []).append(((r[1] - r[0]) / 1e3, (r[0] - t) / 1e3, (r[1] - t) / 1e3))
for k in ("interior", "x face", "y face", "corner"):
    if k not in per: continue
    d = per[k]
    print(f"  {k:8s} {len(d)//len(full):4d} blocks: own time median {st.median(x[0] for x in d):8.1f} us, max {max(x[0] for x in d):8.1f};"
          f" start median {st.median(x[1] for x in d):6.1f} us; end median {st.median(x[2] for x in d):8.1f}")
own = {}
for l in full:
    for r in l: own.setdefault((r[2], r[3], r[4]), []).append(((r[1] - r[0]) / 1e3, r[7]))
slow = sorted(own.items(), key=lambda kv: -st.median(x[0] for x in kv[1]))[:6]
print("  slowest tiles (x, y, z): median us, SMs:", "; ".join(f"{k} {st.median(x[0] for x in v):.1f} {sorted(set(x[1] for x in v))[:3]}" for k, v in slow))
last = {}
for l in full:
    r = max(l, key=lambda r: r[1]); last[kind(r)] = last.get(kind(r), 0) + 1
print("  the last block to end, by kind:", last)
PY
done
if [[ ${BT_TESTS:-0} == 1 ]]; then
  timeout 240 build-gpu-nogui/bin/test_heat3d_gpu >"$out/test-heat3d.log" 2>&1 || status=1
  echo "test_heat3d_gpu (the tree as it is): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/test-heat3d.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Z]' "$out/test-heat3d.log" | head -5
fi
echo "block-times: $((SECONDS - t0)) s"
exit $status
