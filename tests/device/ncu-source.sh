#!/usr/bin/env bash
# Where heat3d stream25d's analytic kernel executes the instructions periodic does not
# (docs/perf.md, session 24: 17% more warp instructions at 256^3): Nsight Compute's source
# counters of one step under each rule, per CUDA source line (the build has -lineinfo), and
# the lines whose executed instructions differ most between the two. Needs a built
# stencilscope (BUILD, default build-gpu-nogui; builds it where missing).
#   NCU_SIZE=256 tests/device/ncu-source.sh
# Logs in $OUT/ncu-source: each rule's report (.ncu-rep), its source page as CSV, and the
# table of lines (top 40 by difference) printed last. Not run yet at the time of writing:
# the CSV's column names are printed so that the summary can be adjusted if they differ.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
log=$out/ncu-source
mkdir -p "$log"
[[ -x $b/bin/stencilscope ]] || build_no_gui "$b" stencilscope || exit 1
for rule in analytic periodic; do
  STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 180 ncu --kernel-name regex:heat3d_step_stream25d --launch-skip 3 --launch-count 1 \
    --section SourceCounters --import-source yes -f -o "$log/$rule" "$b/bin/stencilscope" bench heat3d --variant stream25d \
    --device gpu --size "${NCU_SIZE:-256}" --order 8 --steps 4 --repeat 1 --boundary "$rule" >"$log/$rule-run.txt" 2>&1 ||
    { echo "ncu $rule failed: $(tail -3 "$log/$rule-run.txt")"; continue; }
  ncu --import "$log/$rule.ncu-rep" --page source --print-source cuda --csv >"$log/$rule-source.csv" 2>"$log/$rule-source.err" ||
    echo "source page of $rule failed: $(tail -2 "$log/$rule-source.err")"
  echo "$rule columns: $(head -1 "$log/$rule-source.csv" | cut -c1-400)"
done
python3 - "$log" <<'PY'
import csv, os, sys
log = sys.argv[1]
def lines(rule):
    path = os.path.join(log, rule + "-source.csv")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    rows = list(csv.reader(open(path)))
    # The header row is the one naming a source column; the count column is the first whose
    # name mentions executed instructions.
    for h, head in enumerate(rows):
        low = [c.lower() for c in head]
        src = next((i for i, c in enumerate(low) if c in ("source", "# source", "line")), None)
        cnt = next((i for i, c in enumerate(low) if "instructions executed" in c or c == "inst_executed"), None)
        if src is not None and cnt is not None:
            out = {}
            for n, r in enumerate(rows[h + 1:]):
                if len(r) <= max(src, cnt):
                    continue
                try:
                    v = float(r[cnt].replace(",", ""))
                except ValueError:
                    continue
                key = f"{n:5d} {r[src].strip()[:90]}"
                out[key] = out.get(key, 0) + v
            return out
    print(f"{rule}: no source and instruction columns found in {path}")
    return None
a, p = lines("analytic"), lines("periodic")
if a is None or p is None:
    sys.exit(0)
print(f"warp instructions: analytic {sum(a.values()):.0f}, periodic {sum(p.values()):.0f}")
diff = sorted(((a.get(k, 0) - p.get(k, 0), k) for k in set(a) | set(p)), reverse=True)
print("line (row of the source page) | analytic | periodic | difference")
for d, k in diff[:40]:
    print(f"{k} | {a.get(k, 0):.0f} | {p.get(k, 0):.0f} | {d:+.0f}")
PY
