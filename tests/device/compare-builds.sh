#!/usr/bin/env bash
# A/B of two builds on the GPU: the benchmark rows of issue 17's "nothing slower" check
# (heat2d stream 8192^2 o8, heat3d stream25d 512^3 o8, deriv3d stream 512^3 o8, float),
# run alternately OLD, NEW, OLD, NEW ... so drift hits both, then one line per case with
# each round's copy ratio. JSON of every run goes to $OUT/ab-*.json.
#   tests/device/compare-builds.sh OLD_EXE NEW_EXE [ROUNDS]
set -uo pipefail
old=$1 new=$2 rounds=${3:-2}
out=${OUT:-$PWD/out}
mkdir -p "$out"
cases=("heat2d --size 8192 --order 8 --variant stream --device gpu --repeat 10"
       "heat3d --size 512 --order 8 --variant stream25d --device gpu --steps 10 --repeat 5"
       "deriv3d --size 512 --order 8 --variant stream --device gpu --repeat 10")
for r in $(seq 1 "$rounds"); do
  for c in "${!cases[@]}"; do
    for side in old new; do
      exe=$old; [[ $side == new ]] && exe=$new
      $exe bench ${cases[$c]} --json "$out/ab-$c-$side-$r.json" >"$out/ab-$c-$side-$r.txt" 2>&1 || echo "ab: case $c $side round $r failed"
    done
  done
done
python3 - "$out" "$rounds" "${cases[@]}" <<'PY'
import json, sys, os
out, rounds, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("case | device | old copy ratio per round | new copy ratio per round")
for c, text in enumerate(cases):
    cols = {}
    dev = "?"
    for side in ("old", "new"):
        vals = []
        for r in range(1, rounds + 1):
            p = os.path.join(out, f"ab-{c}-{side}-{r}.json")
            try:
                j = json.load(open(p))
                dev = j["device"]
                vals.append(" ".join(f"{row.get('axis', '')}{row['copy_ratio']:.3f}" for row in j["rows"] if row.get("copy_ratio")))
            except Exception as e:
                vals.append(f"missing ({e.__class__.__name__})")
        cols[side] = " / ".join(vals)
    print(f"{text.split(' --device')[0]} | {dev} | {cols['old']} | {cols['new']}")
PY
