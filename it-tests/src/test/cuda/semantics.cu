// Kernels of the semantics programs (dev.kernelweave.it.semantics): each first spins for `cycles`
// GPU clock cycles, so that on a GPU a missing wait shows as a stale read, then writes values that
// are exact in float, so every device and the Java checks agree bit for bit. Compiled for the CPU
// stand-in driver they do not spin (no __CUDA_ARCH__ there).

__device__ __forceinline__ void spin(long long cycles) {
#ifdef __CUDA_ARCH__
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
#endif
}

// Read by constant_axpb: out = in * scale_coef[0] + scale_coef[1].
__constant__ float scale_coef[2];

// out[i] = value + i.
extern "C" __global__ void slow_fill(float* out, float value, int n, long long cycles) {
  spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}

// y[i] = a * y[i] + b.
extern "C" __global__ void slow_axpb(float* y, float a, float b, int n, long long cycles) {
  spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * y[i] + b;
}

// out[i] = in[i] * scale_coef[0] + scale_coef[1], reading the constants after the spin.
extern "C" __global__ void constant_axpb(float* out, const float* in, int n, long long cycles) {
  spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale_coef[0] + scale_coef[1];
}

// table[0][i] = value + i: writes through a pointer that only device memory holds.
extern "C" __global__ void indirect_fill(float* const* table, float value, int n, long long cycles) {
  spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[0][i] = value + i;
}

// y[i] = y[i] + 1, unless flag[0] is set: then the kernel faults (__trap), and its context gets a
// sticky error.
extern "C" __global__ void trap_if(float* y, const int* flag, int n, long long cycles) {
  spin(cycles);
  if (flag[0] != 0) {
    __trap();
    return;
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] + 1.0f;
}
