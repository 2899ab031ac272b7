#!/usr/bin/env bash
# Regenerates the smoke programs' PTX (committed, so the tests need no nvcc).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_75 -O3 -o ../resources/ptx/smoke.ptx smoke.cu
