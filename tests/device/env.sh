# Sourced by the scripts in tests/device: the repository root as working folder,
# $out (= $OUT, else ./out) for logs, the carried Debian packages unpacked, CUDA on
# PATH, and the commit the copied tree was made from (its own .git, if any, may be
# stale) in STENCILSCOPE_COMMIT for the build to record.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
if [[ -f .devdeps/unpack.sh ]]; then source .devdeps/unpack.sh >/dev/null 2>&1; fi
export PATH=/usr/local/cuda/bin:$PATH
if [[ -f .git-commit ]]; then export STENCILSCOPE_COMMIT=$(head -1 .git-commit); fi
# The external CUDA-GL upload (render/interop.hpp) makes its semaphores with Vulkan: point
# the carried loader at NVIDIA's driver where it is not where the loader looks.
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [[ -z ${VK_DRIVER_FILES:-} && -e $nvidia_icd && ! -e /usr/share/vulkan/icd.d/nvidia_icd.json &&
      ! -e /etc/vulkan/icd.d/nvidia_icd.json ]]; then
  export VK_DRIVER_FILES=$nvidia_icd VK_ICD_FILENAMES=$nvidia_icd
fi
# Runs of several ranks: never NVLink multicast (shared/device/README.md); Open MPI on one
# node, as root in a container.
export NCCL_NVLS_ENABLE=0
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_plm_rsh_agent=false

# build_no_gui DIR [TARGET...]: configures DIR (Release, no GUI, sm_90) where it has no
# build.ninja yet, then builds TARGETs (everything without any); logs in $out/cfg.log and
# $out/build.log, the errors printed; non-zero on a failure.
build_no_gui() {
  local dir=$1 targets=()
  shift
  (($#)) && targets=(--target "$@")
  if [[ ! -f $dir/build.ninja ]]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILSCOPE_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real \
      >"$out/cfg.log" 2>&1 || { tail -20 "$out/cfg.log"; return 1; }
  fi
  cmake --build "$dir" --parallel "$(nproc)" "${targets[@]}" >"$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; return 1; }
}
