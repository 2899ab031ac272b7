#!/usr/bin/env bash
# Regenerates the PTX test resources from ptx-corpus.cu, so that the tests need no nvcc.
#   scheduler/src/test/cuda/build-ptx.sh            (NVCC=/path/to/nvcc to pick another one)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/../resources/ptx"
out="$(cd "$here/../resources/ptx" && pwd)"
nvcc="${NVCC:-nvcc}"
src=ptx-corpus.cu # relative, so that no path of this machine ends up in the debug sections
cd "$here"

build() { # NAME FLAGS...
  local name="$1"
  shift
  "$nvcc" -ptx "$@" -o "$out/$name.ptx" "$src"
  echo "$out/$name.ptx"
}

# Optimized, as applications ship them: the tests hold these to the expected tokens exactly.
build corpus-sm75 -arch=compute_75
build corpus-sm90 -arch=compute_90
build corpus-sm90-lineinfo -arch=compute_90 -lineinfo
# Debug builds: locals in memory, no inlining; the tests check only that nothing is optimistic.
build corpus-sm75-debug -arch=compute_75 -G
build corpus-sm90-debug -arch=compute_90 -G

"$nvcc" --version | tail -n 1 > "$out/NVCC_VERSION"
