// Kernels of the texture probe (dev.kernelweave.it.semantics.StridedMemoryProgram): they read device
// memory through a texture object, a handle the kernel's PTX does not show as a pointer. GPU only:
// the CPU stand-in driver has no textures, and does not compile these in.

__device__ __forceinline__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// out[i] = 2 * (the float at index i of the texture's linear memory) + 1, after `cycles`.
extern "C" __global__ void texture_axpb(float* out, cudaTextureObject_t in, int n, long long cycles) {
  spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * tex1Dfetch<float>(in, i) + 1.0f;
}
