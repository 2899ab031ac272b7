#!/usr/bin/env bash
# Regenerates the fuzz player's fuzz_kernels.ptx (committed, so the build needs no nvcc), which
# ships in the agent jar beside the player.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_75 -O3 -o ../resources/dev/kernelweave/interceptor/selftest/player/fuzz_kernels.ptx fuzz_kernels.cu
