#!/usr/bin/env bash
# Nsight Compute on heat3d's stream25d, one step, for each build given, under each rule given
# (NCU_RULES, default "analytic periodic"; NCU_SIZE, default 512): duration, DRAM bytes,
# instructions, issue and stall figures, one block of lines per run. After ab-overlay.sh.
#   tests/device/ncu-ab.sh EXE...
set -uo pipefail
source "$(dirname "$0")/env.sh"
metrics=${NCU_METRICS:-gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_active.min,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio}
for rule in ${NCU_RULES:-analytic periodic}; do
  for exe in "$@"; do
    echo "== $exe $rule"
    STENCILSCOPE_BENCH_NO_REFERENCE=1 timeout 120 ncu ${NCU_FLAGS:-} --kernel-name regex:heat3d_step_stream25d --launch-skip 3 --launch-count 1 \
      --metrics "$metrics" "$exe" bench heat3d --variant stream25d --device gpu --size "${NCU_SIZE:-512}" --order 8 --steps 4 \
      --repeat 1 --boundary "$rule" 2>&1 | grep -E "^\s+(gpu__|dram__|smsp__|sm__|lts__)" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g'
  done
done
