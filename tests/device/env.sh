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
