// Lets the kernels of src/main/cuda compile as C++ for the CPU: one block at a time, its threads as
// cooperative fibers that switch at __syncthreads(). Float arithmetic is the CPU's SSE (no x87, no
// contraction), which rounds as Java and as the PTX built with -fmad=false do. __CUDA_ARCH__ is not
// defined, so code only a GPU needs (spinning on clock64() to be slow) can be left out.
#pragma once

#include <cmath>

struct kw_dim3 {
  unsigned int x, y, z;
};

extern kw_dim3 threadIdx;
extern kw_dim3 blockIdx;
extern kw_dim3 blockDim;
extern kw_dim3 gridDim;

// Suspends the calling fiber until every thread of the block has reached the barrier.
void __syncthreads();
// Ends the kernel's thread as a fault: the context gets a sticky error (CUDA_ERROR_LAUNCH_FAILED). The
// thread must return after it, as it does not on a GPU.
void __trap();

#define __global__
#define __device__
#define __forceinline__ inline
// One block runs at a time, so one static array per declaration is the block's shared memory.
#define __shared__ static
// A module variable is one host variable; cuModuleGetGlobal hands out its address as device memory.
#define __constant__
