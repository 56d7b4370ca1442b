#!/usr/bin/env bash
# heat3d stream25d under the analytic rule with and without face producer blocks
# (STENCILSCOPE_FACE_PRODUCERS=0: a face kernel of its own before each step), at 512^3 and
# 256^3, for the new and the old build of ab-overlay.sh, two runs each. Session 23 (H100):
# without producers 256^3 went from 0.67 to 0.79 of copy.
#   tests/device/producers-ab.sh [NEW_EXE [OLD_EXE]]
set -uo pipefail
source "$(dirname "$0")/env.sh"
exes=("${1:-build-gpu-nogui/bin/stencilscope}" "${2:-/tmp/ab-old-tree/build/bin/stencilscope}")
for s in 512 256; do
  for p in 0 8; do
    for e in "${exes[@]}"; do
      for r in 1 2; do
        echo "$s $e producers=$p: $(STENCILSCOPE_FACE_PRODUCERS=$p STENCILSCOPE_BENCH_NO_REFERENCE=1 $e bench heat3d --variant stream25d \
          --device gpu --size $s --order 8 --steps 20 --repeat 3 --boundary analytic | awk '$1 == "stream25d" { print $4 " ms, copy " $7 }')"
      done
    done
  done
done
