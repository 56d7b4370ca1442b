#!/usr/bin/env bash
# Where heat3d stream25d executes, under another rule, the instructions periodic does not
# (docs/perf.md, sessions 24-25: 15-17% more warp instructions under the analytic rule at
# 256^3): Nsight Compute's source counters of one step under each rule, per SASS instruction
# (ncu's CUDA-source page carries no metrics), summed by opcode and by how many times a line
# ran (the unrolled plane loop, the set-up, a branch some warps take). Needs a built
# stencilscope (BUILD, default build-gpu-nogui; builds it where missing).
#   NCU_SIZE=256 RULES="analytic insulated periodic" tests/device/ncu-source.sh
# Logs in $OUT/ncu-source: each rule's report (.ncu-rep) and SASS page as CSV; the
# comparisons with periodic are printed last.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-nogui}
log=$out/ncu-source
mkdir -p "$log"
[[ -x $b/bin/stencilscope ]] || build_no_gui "$b" stencilscope || exit 1
for rule in ${RULES:-analytic periodic}; do
  STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 180 ncu --kernel-name regex:heat3d_step_stream25d --launch-skip 3 --launch-count 1 \
    --section SourceCounters --import-source yes -f -o "$log/$rule" "$b/bin/stencilscope" bench heat3d --variant stream25d \
    --device gpu --size "${NCU_SIZE:-256}" --order 8 --steps 4 --repeat 1 --boundary "$rule" >"$log/$rule-run.txt" 2>&1 ||
    { echo "ncu $rule failed: $(tail -3 "$log/$rule-run.txt")"; continue; }
  # The CUDA source page lists lines without metrics (session 25): the SASS page carries them.
  ncu --import "$log/$rule.ncu-rep" --page source --print-source sass --csv >"$log/$rule-sass.csv" 2>"$log/$rule-sass.err" ||
    echo "SASS page of $rule failed: $(tail -2 "$log/$rule-sass.err")"
  echo "$rule columns: $(sed -n 1,3p "$log/$rule-sass.csv" | cut -c1-300 | tr '\n' ' ')"
done
python3 - "$log" ${RULES:-analytic periodic} <<'PY'
import csv, os, re, sys, collections
log = sys.argv[1]
def rows(rule):
    path = os.path.join(log, rule + "-sass.csv")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    table = list(csv.reader(open(path)))
    for h, head in enumerate(table):
        low = [c.lower() for c in head]
        src = next((i for i, c in enumerate(low) if c == "source"), None)
        cnt = next((i for i, c in enumerate(low) if c in ("instructions executed", "warp instructions executed")), None)
        if cnt is None:
            cnt = next((i for i, c in enumerate(low) if "instructions executed" in c), None)
        if src is not None and cnt is not None:
            out = []
            for r in table[h + 1:]:
                if len(r) <= max(src, cnt):
                    continue
                try:
                    out.append((r[src].strip(), float(r[cnt].replace(",", "") or 0)))
                except ValueError:
                    pass
            return out
    print(f"{rule}: no source and instruction columns in {path}: {table[:2]}")
    return None
def stalls(rule):
    """Warp-stall samples of the rule's kernel, by reason (ncu's stall_* columns, all samples)."""
    path = os.path.join(log, rule + "-sass.csv")
    table = list(csv.reader(open(path)))
    for h, head in enumerate(table):
        cols = [(i, c) for i, c in enumerate(head) if c.startswith("stall_") and "Not Issued" not in c]
        if cols:
            out = collections.Counter()
            for r in table[h + 1:]:
                if len(r) == len(head):
                    for i, c in cols:
                        try:
                            out[c[6:]] += int(float(r[i] or 0))
                        except ValueError:
                            pass
            return out
    return collections.Counter()
def opcode(text):
    t = re.sub(r"^@!?U?P[T0-9]+\s+", "", text)
    return t.split(" ")[0] if t else "?"
names = sys.argv[2:]
base = rows("periodic")
if base is None:
    sys.exit(0)
for rule in [n for n in names if n != "periodic"]:
    a = rows(rule)
    if a is None:
        continue
    ta, tp = sum(v for _, v in a), sum(v for _, v in base)
    print(f"== {rule} against periodic: warp instructions {ta:.0f} / {tp:.0f} ({ta / tp - 1:+.1%}); SASS lines {len(a)} / {len(base)}")
    mix = {}
    for key, rs in ((rule, a), ("periodic", base)):
        m = collections.Counter()
        for t, v in rs:
            m[opcode(t)] += v
        mix[key] = m
    print(f"opcode | {rule} | periodic | difference")
    for op in sorted(set(mix[rule]) | set(mix["periodic"]), key=lambda o: -(mix[rule][o] - mix["periodic"][o]))[:20]:
        print(f"{op} | {mix[rule][op]:.0f} | {mix['periodic'][op]:.0f} | {mix[rule][op] - mix['periodic'][op]:+.0f}")
    # Lines executed the same number of times belong to one path (the unrolled plane loop, the
    # set-up, a branch taken by some warps): the paths whose totals differ most.
    buckets = {}
    for key, rs in ((rule, a), ("periodic", base)):
        b = collections.Counter()
        for _, v in rs:
            b[v] += v
        buckets[key] = b
    print(f"times executed | {rule} lines | periodic lines | difference in instructions")
    for n in sorted(set(buckets[rule]) | set(buckets["periodic"]), key=lambda k: -abs(buckets[rule][k] - buckets["periodic"][k]))[:15]:
        if n:
            print(f"{n:.0f} | {buckets[rule][n] / n:.0f} | {buckets['periodic'][n] / n:.0f} | {buckets[rule][n] - buckets['periodic'][n]:+.0f}")
    sa, sp = stalls(rule), stalls("periodic")
    print(f"warp-stall samples: {rule} {sum(sa.values())}, periodic {sum(sp.values())}; by reason ({rule} | periodic | difference):")
    for k in sorted(set(sa) | set(sp), key=lambda k: -abs(sa[k] - sp[k]))[:8]:
        print(f"  {k} | {sa[k]} | {sp[k]} | {sa[k] - sp[k]:+d}")
PY
