#!/usr/bin/env bash
# A kernel change kept as a patch (tests/device/patches/*.patch, prepared where no GPU was
# left to measure it) against the tree as it is, in one device call: the files the patch
# touches are copied as they are into ab-old/, the patch is applied to this (device) copy
# of the tree, and ab-overlay.sh builds both, benches them in turns (AB_CASES, AB_ROUNDS),
# runs test_heat3d_gpu on the patched build and, with TOOLS, sanitize.sh on stream25d.
#   AB_CASES="512:insulated 256:insulated 512:periodic" tests/device/patch-ab.sh tests/device/patches/NAME.patch
# Never run it in a checkout you keep: it applies the patch to the working tree.
set -uo pipefail
cd "$(dirname "$0")/../.."
patch_file=${1:?usage: patch-ab.sh PATCH}
[[ -f $patch_file ]] || { echo "patch-ab: no $patch_file"; exit 1; }
rm -rf ab-old
while read -r path; do
  mkdir -p "ab-old/$(dirname "$path")"
  cp "$path" "ab-old/$path"
done < <(grep -E '^\+\+\+ b/' "$patch_file" | sed -E 's#^\+\+\+ b/([^[:space:]]+).*#\1#')
if command -v patch >/dev/null; then patch -p1 --forward <"$patch_file" >/dev/null; else git apply "$patch_file"; fi ||
  { echo "patch-ab: $patch_file does not apply"; exit 1; }
echo "patch-ab: $(basename "$patch_file") applied; the files before it in ab-old/: $(find ab-old -type f | wc -l)"
exec tests/device/ab-overlay.sh
