#!/usr/bin/env bash
# Issue 20: a screenshot of the layout (side bar and views, 1280x720) with each model,
# rendered headless on the GPU machine (`record --headless --ui`, EGL, CUDA-GL interop).
# Builds if needed (BUILD, default build-gpu), writes $OUT/shots/MODEL.png (the last
# frame of each run) and a line per model. Copy the ones worth keeping to docs/.
# MODELS (space-separated) shoots only those; TARGETS builds only those targets.
#   tests/device/screenshots.sh [FRAMES]     frames per run (default 48)
set -uo pipefail
source "$(dirname "$0")/env.sh"
frames=${1:-48}
build=${BUILD:-build-gpu}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
    >"$out/configure-shots.log" 2>&1 || { tail -30 "$out/configure-shots.log"; exit 1; }
fi
cmake --build $build --parallel "$(nproc)" ${TARGETS:+--target $TARGETS} >"$out/build-shots.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build-shots.log" | head -40; exit 1; }
exe=$build/bin/stencilscope
mkdir -p "$out/shots"
status=0
# shot MODEL [scene options]: FRAMES frames at 1280x720 with the panels; keeps the last.
shot() {
  local model=$1; shift
  [[ -z ${MODELS:-} || " $MODELS " == *" $model "* ]] || return 0
  local dir="$out/shots/$model-frames"
  rm -rf "$dir"
  if env -u DISPLAY timeout 120 $exe record --headless --ui --device gpu --width 1280 --height 720 \
      --frames "$frames" --out "$dir" --model "$model" "$@" >"$out/shots/$model.txt" 2>&1; then
    local last; last=$(ls "$dir"/*.png 2>/dev/null | sort | tail -1)
    if [[ -n $last ]]; then mv "$last" "$out/shots/$model.png"; echo "shot $model: $(stat -c %s "$out/shots/$model.png") bytes"
    else echo "shot $model: no PNG written"; status=1; fi
  else
    echo "shot $model: failed: $(tail -2 "$out/shots/$model.txt" | tr '\n' ' ')"; status=1
  fi
  rm -rf "$dir"
}
shot heat2d --size 1024 --steps-per-frame 200
shot heat3d --size 192 --steps-per-frame 100
shot deriv3d --size 128
shot hydro3d --size 128 --steps-per-frame 2  # the explosion focuses at the centre near step 120 (|u| 4): the shell before that
shot acoustic3d --size 192 --steps-per-frame 8 --colormap blue-red --range=-0.02:0.02
shot elastic3d --size 160 --steps-per-frame 8 --colormap blue-red
exit $status
