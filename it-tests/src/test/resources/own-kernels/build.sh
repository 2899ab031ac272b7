#!/usr/bin/env bash
# Regenerates own_kernels.ptx, printf_kernels.ptx and fault_kernels.ptx (committed, so the tests need no nvcc).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o own_kernels.ptx own_kernels.cu
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o printf_kernels.ptx printf_kernels.cu
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o fault_kernels.ptx fault_kernels.cu
