// Regenerate the committed PTX: nvcc -ptx -arch=compute_75 -O3 -o ../resources/dev/kernelweave/interceptor/selftest/selftest.ptx selftest.cu
// The self-test's kernels (see dev.kernelweave.selftest.Kernel): 32-bit wrapping arithmetic, one
// thread per element, so that every correct order of execution gives the same bits.
extern "C" __global__ void kw_fill(unsigned* out, const unsigned* in1, const unsigned* in2, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = k + (unsigned) i * 0x9E3779B9u;
}

extern "C" __global__ void kw_scale(unsigned* out, const unsigned* in1, const unsigned* in2, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in1[i] * (k | 1u) + (unsigned) i;
}

extern "C" __global__ void kw_mix(unsigned* out, const unsigned* in1, const unsigned* in2, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned a = in1[i];
    out[i] = ((a << 5) | (a >> 27)) ^ (in2[i] * 0x01000193u + k);
  }
}

extern "C" __global__ void kw_update(unsigned* out, const unsigned* in1, const unsigned* in2, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = out[i] * 3u + (in1[i] ^ k);
}

extern "C" __global__ void kw_reduce(unsigned* out, const unsigned* in1, const unsigned* in2, int n, unsigned k) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned sum = k;
    for (int i = 0; i < n; i++) sum += in1[i] * (2u * (unsigned) i + 1u);
    out[0] = sum;
  }
}

// Given a pointer just past its range, writes the n elements below it: a kernel that indexes back
// from an interior pointer.
extern "C" __global__ void kw_fill_backward(unsigned* out, const unsigned* in1, const unsigned* in2, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[-1 - i] = k + (unsigned) i * 0x9E3779B9u;
}

// The module's constant, written by cuMemcpyHtoD to the address cuModuleGetGlobal gives.
__constant__ unsigned kw_constant[4];

extern "C" __global__ void kw_fill_constant(unsigned* out, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (k ^ kw_constant[0]) + (unsigned) i * 0x9E3779B9u;
}

// Writes through a pointer stored in device memory: the self-test launches it as a kernel whose
// code the agent cannot read.
extern "C" __global__ void kw_fill_indirect(unsigned* const* slot, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) (*slot)[i] = k + (unsigned) i * 0x9E3779B9u;
}
