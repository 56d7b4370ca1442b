#!/usr/bin/env bash
# DRAM and L2 traffic of heat3d stream25d steps per boundary rule (Nsight Compute):
# bytes read and written from DRAM per step, and the L2 hit rate, so that a rule's
# extra time can be told apart as traffic or as instructions.
#   DB_CASES="512:analytic 512:periodic" tests/device/dram-bytes.sh [BUILD_DIR]   logs in $OUT
set -uo pipefail
source "$(dirname "$0")/env.sh"
build=${1:-build-gpu-nogui}
[[ -x $build/bin/stencilscope ]] || build_no_gui "$build" stencilscope || exit 1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
[[ -n $ncu ]] || { echo "dram-bytes: no ncu"; exit 1; }
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,sm__inst_executed.sum
for c in ${DB_CASES:-512:analytic 512:periodic}; do
  size=${c%%:*} rule=${c#*:}
  f=$out/ncu-$size-$rule.csv
  STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 120 "$ncu" --csv --metrics "$metrics" -k regex:'heat3d_step_stream25d|face_ghosts' -s ${DB_SKIP:-4} -c ${DB_COUNT:-3} \
    "$build/bin/stencilscope" bench heat3d --variant stream25d --device gpu --size "$size" --order 8 --steps ${DB_STEPS:-4} --repeat 1 \
    --precision float --param boundary="$rule" >"$f" 2>"$f.err"
  python3 - "$f" "$size $rule" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if len(rows) < 2: print(sys.argv[2], ": no ncu rows"); sys.exit()
h = rows[0]; ki, mi, vi, ui, ii = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("Metric Unit"), h.index("ID")
per = collections.defaultdict(dict)
for r in rows[1:]:
    v = float(r[vi].replace(",", "")); u = r[ui]
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1, "usecond": 1e3, "msecond": 1e6}.get(u, 1)
    per[(r[ii], r[ki].split("<")[0].split("(")[0])][r[mi]] = v * scale
for (i, k), m in sorted(per.items()):
    print(f"{sys.argv[2]:14s} {k:28s} DRAM read {m.get('dram__bytes_read.sum',0)/1e6:8.1f} MB write {m.get('dram__bytes_write.sum',0)/1e6:8.1f} MB"
          f"  L2 hit {m.get('lts__t_sector_hit_rate.pct',0):5.1f}%  {m.get('gpu__time_duration.sum',0)/1e3:8.1f} us  inst {m.get('sm__inst_executed.sum',0)/1e6:7.1f} M")
PY
done
