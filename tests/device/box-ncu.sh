#!/usr/bin/env bash
# Why a heat3d GPU box steps slower than one GPU on a box of the same size (docs/distributed.md,
# session 29: the lean box form +14-18% without any exchange): Nsight Compute's counters of
# every stream25d launch of one process holding the whole grid as one box
# (`mpirun -np 1 ... bench heat3d --device gpu --decomp 1x1x1`: the table's "one rank" row runs
# the one-GPU kernel, its "1 ranks" row the box kernel, on the same GPU), averaged per kernel:
# time, warp instructions, shared loads and stores, DRAM bytes, registers, active warps. One
# device call of a few minutes on one GPU. SIZE (default 512), RULE (default analytic),
# BUILD (default build-gpu-mpi). Logs in $OUT/box-ncu.*.
set -uo pipefail
source "$(dirname "$0")/env.sh"
b=${BUILD:-build-gpu-mpi}
build_no_gui $b stencilscope || exit 1
e=$b/bin/stencilscope
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics=$metrics,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 400 mpirun --allow-run-as-root -q --mca btl self,vader -np 1 \
  ncu --kernel-name regex:heat3d_step_stream25d --launch-count 24 --metrics "$metrics" --csv --page raw \
  $e bench heat3d --device gpu --decomp 1x1x1 --size "${SIZE:-512}" --boundary "${RULE:-analytic}" --order 8 \
  --steps 4 --repeat 1 >"$out/box-ncu.csv" 2>"$out/box-ncu.err"
rc=$?
echo "ncu exit $rc, $(grep -c heat3d_step_stream25d "$out/box-ncu.csv") launches"
python3 - "$out/box-ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is None:
    sys.exit("no table in the ncu output")
h = rows[head]
name = h.index("Kernel Name")
cols = [c for c in h if "__" in c]
groups = collections.defaultdict(list)
for r in rows[head + 1:]:
    if len(r) == len(h) and "stream25d" in r[name]:
        groups[r[name]].append(r)
def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return float("nan")
for kernel, rs in groups.items():
    # The template's 7th argument is kBox: the box kernel (true) or the one-GPU one.
    print(f"== {len(rs)} launches: {kernel.split('(')[0]}")
    for c in cols:
        vals = [num(r[h.index(c)]) for r in rs]
        print(f"   {c:60s} {sum(vals) / len(vals):16.4g}")
PY
exit $rc
