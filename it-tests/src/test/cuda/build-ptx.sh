#!/usr/bin/env bash
# Regenerates the test programs' device code (committed, so the tests need no nvcc): PTX for the
# smoke, semantics, pointer, texture and contract-probe programs, and the semantics kernels as an sm_90 cubin and fatbin (no
# PTX in them), for programs whose kernels the agent cannot read.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_75 -O3 -o ../resources/ptx/smoke.ptx smoke.cu
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o ../resources/ptx/semantics.ptx semantics.cu
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o ../resources/ptx/pointers.ptx pointers.cu
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o ../resources/ptx/textures.ptx textures.cu
nvcc -ptx -arch=compute_75 -O3 -fmad=false -o ../resources/ptx/contract.ptx contract.cu
mkdir -p ../resources/cubin
nvcc -cubin -arch=sm_90 -O3 -fmad=false -o ../resources/cubin/semantics.sm_90.cubin semantics.cu
nvcc -fatbin --no-compress -gencode arch=compute_90,code=sm_90 -O3 -fmad=false \
    -o ../resources/cubin/semantics.sm_90.fatbin semantics.cu
