#!/usr/bin/env bash
# Nsight Compute on heat3d stream25d at 256^3, analytic and periodic, with the default slabs
# (4 of 64 planes) and one slab of 256 planes (STENCILSCOPE_STREAM25_SLAB=256): instructions,
# duration and SM balance per step, to split the analytic kernel's extra work into a part per
# block (set-up, ghost planes) and a part per plane (session 24).
set -uo pipefail
cd "$(dirname "$0")/../.."
source .devdeps/unpack.sh >/dev/null 2>&1; source tests/device/env.sh; t0=$SECONDS
build_no_gui build-gpu-nogui stencilscope || exit 1; echo "build $((SECONDS-t0)) s"
exe=build-gpu-nogui/bin/stencilscope
for rule in analytic periodic; do for slab in 0 256; do
  echo "== $rule slab=$slab"
  env $( [[ $slab != 0 ]] && echo STENCILSCOPE_STREAM25_SLAB=$slab ) STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 60 ncu --kernel-name regex:heat3d_step_stream25d --launch-skip 3 --launch-count 1 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.max,sm__cycles_active.avg,launch__grid_size $exe bench heat3d --variant stream25d \
    --device gpu --size 256 --order 8 --steps 4 --repeat 1 --boundary $rule 2>&1 | grep -E "^\s+(gpu__|smsp__|sm__|launch__)" | sed -E 's/ +/ /g'
done; done
echo "total $((SECONDS-t0)) s"
