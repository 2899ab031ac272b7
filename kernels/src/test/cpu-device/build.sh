#!/usr/bin/env bash
# Builds the cpu-device libcuda.so.1 and libcublas.so.12 into OUT_DIR (default: kernels/target/cpu-device).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kernels="$(cd "$here/../../.." && pwd)"
out="${1:-$kernels/target/cpu-device}"
mkdir -p "$out"
flags=(-std=c++17 -O2 -fPIC -shared -pthread -ffp-contract=off -fno-fast-math -Wall -Wno-unused-function)
g++ "${flags[@]}" -I"$here" -I"$kernels/src/main/cuda" -I"$kernels/../it-tests/src/test/cuda" -o "$out/libcuda.so.1" "$here/cpu_device.cpp" \
    "$here/ptx_parser.cpp" "$here/ptx_text.cpp" "$here/ptx_instructions.cpp" "$here/ptx_semantics.cpp" "$here/ptx_executor.cpp" "$here/ptx_printf.cpp" \
    -Wl,-soname,libcuda.so.1
g++ "${flags[@]}" -I"$here" -o "$out/libcublas.so.12" "$here/cpu_cublas.cpp" \
    -Wl,-soname,libcublas.so.12 -Wl,--version-script,"$here/cublas.map" "$out/libcuda.so.1"
echo "$out"
