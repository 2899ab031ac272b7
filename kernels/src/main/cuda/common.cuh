// Device functions shared by the workloads. Each has a twin in
// dev.kernelweave.kernels.CpuMath that performs the same float operations in the same order;
// the PTX is built with -fmad=false so that no multiply and add are fused, which keeps the two
// bit-identical.
#pragma once

// Threads per block of every block reduction (kw_block_sum); the host launches exactly this many.
#define KW_REDUCE_THREADS 256

// The logistic map x -> 3.9 x (1 - x), applied `rounds` times: chaotic, so that any difference in
// an input shows in the output, and bounded: it maps (0, 1) into (0, 0.975].
__device__ __forceinline__ float kw_logistic(float x, int rounds) {
  for (int k = 0; k < rounds; k++) {
    x = (3.9f * x) * (1.0f - x);
  }
  return x;
}

// Maps [0, 1] into [0.05, 0.95].
__device__ __forceinline__ float kw_squash(float x) {
  return 0.9f * x + 0.05f;
}

// Blends a value with a weight, both in [0, 1], into [0.05, 1).
__device__ __forceinline__ float kw_blend(float x, float w) {
  return (0.9f * x + 0.05f * w) + 0.05f;
}

// Three-point smoothing with periodic ends.
__device__ __forceinline__ float kw_stencil(const float* __restrict__ v, int i, int n) {
  int left = i == 0 ? n - 1 : i - 1;
  int right = i == n - 1 ? 0 : i + 1;
  return (0.25f * v[left] + 0.5f * v[i]) + 0.25f * v[right];
}

// Sums one value per thread of a block of KW_REDUCE_THREADS threads in a fixed order: each thread
// has already summed its elements i = t, t + KW_REDUCE_THREADS, ... in turn; the partial sums are
// then added pairwise, halving the stride. Every thread must call it; thread 0 gets the sum.
__device__ __forceinline__ float kw_block_sum(float partial) {
  __shared__ float sums[KW_REDUCE_THREADS];
  int t = threadIdx.x;
  sums[t] = partial;
  __syncthreads();
  for (int stride = KW_REDUCE_THREADS / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      sums[t] = sums[t] + sums[t + stride];
    }
    __syncthreads();
  }
  return sums[0];
}

#define KW_FOR_EACH(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
