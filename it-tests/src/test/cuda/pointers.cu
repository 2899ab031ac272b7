// Kernels of the pointer programs (dev.kernelweave.it.semantics.PointerProgram): what a kernel may
// do with the pointers it is given that the agent's analysis must not miss. Each writes values that
// are exact in float. Compiled for the CPU stand-in driver they run as they are; printf there goes
// through C's stdio, flushed at once so its lines keep their place among the program's own.

#include <cstdio>

// One line, "result printf rep R launch K", from the first thread.
extern "C" __global__ void print_launch(int rep, int launch) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    printf("result printf rep %d launch %d\n", rep, launch);
#ifndef __CUDA_ARCH__
    fflush(stdout);
#endif
  }
}

// Packed to 4 bytes: the pointer sits at offset 4 of the 12-byte parameter.
struct __attribute__((packed, aligned(4))) PackedTarget {
  int n;
  float* out;
};

// target.out[i] = value + i.
extern "C" __global__ void packed_fill(PackedTarget target, float value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < target.n) target.out[i] = value + i;
}

// end[-1 - i] = value + i: given one past the end of its buffer, it writes backwards.
extern "C" __global__ void fill_before(float* end, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) end[-1 - i] = value + i;
}

// b[i] = value + i, written as a[(b - a) + i]: the address comes from a, the memory is b's.
extern "C" __global__ void fill_through_difference(float* a, const float* b, float value, int n) {
  long long distance = b - a;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[distance + i] = value + i;
}

// out[i] = in[i] + 1.
extern "C" __global__ void add_one(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}
