#!/usr/bin/env bash
# Regenerates the PTX test resources from ptx-corpus.cu, so that the tests need no nvcc.
#   scheduler/src/test/cuda/build-ptx.sh            (NVCC=/path/to/nvcc to pick another one)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/../resources/ptx"
out="$(cd "$here/../resources/ptx" && pwd)"
nvcc="${NVCC:-nvcc}"
src=ptx-corpus.cu
cd "$here"

build() { # NAME FLAGS...
  local name="$1"
  shift
  "$nvcc" -ptx "$@" -o "$out/$name.ptx" "${SRC:-$src}"
  # Debug information names the source by its absolute path: keep it relative to this folder.
  sed -i "s#\"$here/#\"#" "$out/$name.ptx"
  echo "$out/$name.ptx"
}

# Optimized, as applications ship them: the tests hold these to the expected tokens exactly.
build corpus-sm75 -arch=compute_75
build corpus-sm90 -arch=compute_90
build corpus-sm90-lineinfo -arch=compute_90 -lineinfo
# Debug builds (-G), unoptimized: the tests check only that nothing comes out optimistic.
build corpus-sm75-debug -arch=compute_75 -G
build corpus-sm90-debug -arch=compute_90 -G

# The merged-variant tests (KernelMergingTest, MergedKernelsOnCpuDeviceTest, MergedKernelsGpuTest):
# kernels to merge, built as the workloads are, and kernels to refuse (-rdc for device launches and
# grid-wide sync).
SRC=merge-kernels.cu build merge-kernels -arch=compute_75 -O3 -fmad=false
SRC=merge-refusals.cu build merge-refusals -arch=compute_90 -rdc=true -O3

"$nvcc" --version | tail -n 1 > "$out/NVCC_VERSION"
