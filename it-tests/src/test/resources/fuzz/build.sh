#!/usr/bin/env bash
# Regenerates fuzz_kernels.ptx (committed, so the tests need no nvcc).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_75 -O3 -o fuzz_kernels.ptx fuzz_kernels.cu
