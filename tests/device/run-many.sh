#!/usr/bin/env bash
# One device call, several checks: runs each "NAME:SECONDS:COMMAND" in turn under its own
# time limit, its output in $OUT/NAME.log, prints the last TAIL (default 25) lines of each
# with its exit status and time (each check's own files go to $OUT/NAME/), and packs every log and everything the checks wrote under
# $OUT (or ./out) into $OUT/logs.tar.gz (PNGs stay beside it), so that few files come back.
#   tests/device/run-many.sh "build:300:cmake --build build-gpu" "tp:200:tests/device/throughput.sh 200" ...
set -uo pipefail
source "$(dirname "$0")/env.sh"
status=0
for spec in "$@"; do
  name=${spec%%:*}; rest=${spec#*:}; limit=${rest%%:*}; cmd=${rest#*:}
  start=$SECONDS
  mkdir -p "$out/$name"
  OUT="$out/$name" timeout --kill-after=10 "$limit" bash -c "$cmd" >"$out/$name.log" 2>&1
  rc=$?
  [[ $rc == 0 ]] || status=1
  echo "=== $name: exit $rc in $((SECONDS - start)) s$([[ $rc == 124 ]] && echo " (time limit $limit s)")"
  tail -n "${TAIL:-25}" "$out/$name.log"
done
# The device tool brings back at most 8 files: one archive, and the PNGs beside it.
( cd "$out" && find . -type f ! -name logs.tar.gz ! -name '*.png' -size -20M -print0 | tar -czf logs.tar.gz --null -T - &&
  find . -type f ! -name logs.tar.gz ! -name '*.png' -delete && find . -mindepth 1 -type d -empty -delete ) 2>/dev/null
exit $status
