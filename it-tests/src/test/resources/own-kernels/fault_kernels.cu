// Kernels with bad addresses for FaultingKernelsProgram: on a GPU each ends with
// CUDA_ERROR_ILLEGAL_ADDRESS; the stand-in's PTX interpreter must report the same, not crash.
// `write_past_end` stores one element `offset` elements past the end of its `n`-element buffer;
// `read_into` copies `n` elements from `from` (freed memory, in the test) into `to`.
extern "C" __global__ void write_past_end(float* out, int n, long long offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * i;
  if (i == 0) out[n - 1 + offset] = -1.0f;
}

extern "C" __global__ void read_into(const float* from, float* to, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = from[i] + 1.0f;
}

// One-past-the-end pointers that are never dereferenced, and accesses into a module variable and
// shared memory: legitimate, they must not fault.
__device__ float bias[4] = {0.5f, 1.5f, 2.5f, 3.5f};

extern "C" __global__ void fill_to_end(float* out, int n) {
  __shared__ float staged[64];
  const float* end = out + n;
  int i = threadIdx.x;
  staged[i] = bias[i % 4];
  __syncthreads();
  for (float* p = out + i; p < end; p += blockDim.x) *p = staged[(p - out) % blockDim.x];
}
