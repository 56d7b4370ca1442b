#!/usr/bin/env bash
# compute-sanitizer over every GPU variant of every registered model (read from
# `stencilscope models --json`, so a new model is covered by registering): the four
# tools (memcheck, racecheck, synccheck, initcheck), sizes that are no multiple of any
# tile (2D 301x97, 3D 45x37x29; the posts' fixed-size deriv3d kernels at 64^3, float
# only), float and double, the highest order (8; hydro3d 6), 2 steps, every word of
# each choice parameter that selects kernel code (the boundary rules; one that bench
# sweeps, such as deriv3d's axis, runs as "all"). One line per case; a report is accepted only
# when tests/device/sanitizer-known.txt lists it (tool, model, variant and a pattern of
# the report, with the document that explains it). Exits 1 on any other report or a
# failed run. Logs go to $OUT/sanitize/ (the last 200 lines of each report).
#   tests/device/sanitize.sh [BUILD_DIR] [TOOLS...]
# SANITIZE_MODELS="heat3d deriv3d" limits the models, SANITIZE_VARIANTS="stream25d" the
# variants (default: all); SANITIZE_JOBS runs that many cases at once (default 6).
set -uo pipefail
source "$(dirname "$0")/env.sh"
build=${1:-build-gpu}
shift || true
tools=("${@:-memcheck racecheck synccheck initcheck}")
read -r -a tools <<<"${tools[*]}"
exe=$build/bin/stencilscope
log=$out/sanitize
mkdir -p "$log"
known=tests/device/sanitizer-known.txt
$exe models --json >"$log/models.json" || { echo "sanitize: cannot list the models"; exit 1; }
# The cases: tool model variant precision and the extra arguments, one per line.
SANITIZE_MODELS=${SANITIZE_MODELS:-} SANITIZE_VARIANTS=${SANITIZE_VARIANTS:-} \
python3 - "$log/models.json" "${tools[@]}" >"$log/cases.txt" <<'PY'
import json, os, sys
models, tools = json.load(open(sys.argv[1])), sys.argv[2:]
only_models = os.environ["SANITIZE_MODELS"].split()
only_variants = os.environ["SANITIZE_VARIANTS"].split()
for tool in tools:
    for m in models:
        if only_models and m["name"] not in only_models:
            continue
        size = "301x97" if m["dims"] == 2 else "45x37x29"
        sweeps = [p for p in m["params"] if p["kind"] == "choice" and p.get("selects_code")]
        configs = [[]]
        for p in sweeps:
            if p.get("bench_sweeps"):
                configs = [c + [f"--param {p['name']}=all"] for c in configs]
        for p in sweeps:
            if p.get("bench_sweeps"):
                continue
            for word in p["choices"]:
                if word != p["default"]:
                    configs.append([f"--param {p['name']}={word}"])
        for v in m["variants"]:
            if v["device"] != "gpu" or (only_variants and v["name"] not in only_variants):
                continue
            # The posts' own deriv3d kernels are compiled for 64^3 and 256^3, order 8, float
            # only: they run at 64^3 (every other size is refused, and skipped).
            posts = v["name"].startswith("posts-")
            for prec in ("float",) if posts else ("float", "double"):
                for c in configs:
                    order = max(m["orders"])  # 8, or the model's only order (hydro3d: 6)
                    vsize = "64x64x64" if posts else size
                    args = f"bench {m['name']} --variant {v['name']} --device gpu --size {vsize} --order {order} --steps 2 --repeat 1 --precision {prec} " + " ".join(c)
                    print("\t".join([tool, m["name"], v["name"], prec, " ".join(c) or "defaults", args]))
PY
run_case() {
  local tool=$1 model=$2 variant=$3 prec=$4 what=$5 args=$6
  local name="$tool-$model-$variant-$prec-${what//[^a-zA-Z0-9=]/_}"
  local report="$log/$name.log"
  local flags=(--tool "$tool" --error-exitcode 9 --print-limit 200)
  [[ $tool == racecheck ]] && flags+=(--racecheck-report all)
  compute-sanitizer "${flags[@]}" $exe $args >"$report.full" 2>&1
  local rc=$?
  tail -200 "$report.full" >"$report"; rm -f "$report.full"
  local summary
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$report" | tail -1)
  if [[ $rc -eq 0 ]] && grep -q "skipped:" "$report"; then
    echo "skipped   $tool $model $variant $prec $what: $(grep -o 'skipped: .*' "$report" | head -1)"; return; fi
  if [[ $rc -eq 0 ]]; then echo "clean     $tool $model $variant $prec $what"; rm -f "$report"; return; fi
  # Every report line must match a documented entry for this tool, model and variant.
  local unexplained
  unexplained=$(grep -E "^========= (Error|Race|Barrier|Invalid|Uninitialized|Warning)" "$report" | while read -r line; do
      explained=0
      while IFS=$'\t' read -r ktool kmodel kvariant kpattern kdoc; do
        [[ -z $ktool || $ktool == \#* ]] && continue
        if [[ $ktool == "$tool" && $kmodel == "$model" && $kvariant == "$variant" ]] && grep -qE "$kpattern" <<<"$line"; then explained=1; break; fi
      done <"$known"
      [[ $explained == 0 ]] && echo "$line"
    done | sort | uniq -c | head -5)
  if [[ $rc -ne 9 ]]; then echo "FAILED    $tool $model $variant $prec $what (exit $rc): $(tail -2 "$report" | tr '\n' ' ')"; return; fi
  if [[ -z $unexplained ]]; then echo "known     $tool $model $variant $prec $what: $summary"
  else echo "REPORTED  $tool $model $variant $prec $what: $summary; $(echo "$unexplained" | head -2 | tr '\n' ' ')"; fi
}
export -f run_case
export exe log known
jobs=${SANITIZE_JOBS:-6}
tr '\n' '\0' <"$log/cases.txt" | xargs -0 -P "$jobs" -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r a b c d e f <<<"$1"; run_case "$a" "$b" "$c" "$d" "$e" "$f"' _ {} | sort -k2,2 -k3,3 -k4,4 | tee "$log/summary.txt"
echo "sanitize: $(grep -c '^clean' "$log/summary.txt") clean, $(grep -c '^known' "$log/summary.txt") known, $(grep -c '^REPORTED' "$log/summary.txt") reported, $(grep -c '^FAILED' "$log/summary.txt") failed, of $(wc -l <"$log/cases.txt") cases"
! grep -qE '^(REPORTED|FAILED)' "$log/summary.txt"
