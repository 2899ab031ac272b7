// Kernels of the contract probes (dev.kernelweave.it.semantics.ContractProbesProgram): module
// variables written and read by kernels that take no pointer to them, pointers that only device
// memory holds, integer mixing over memset bytes, and dynamic shared memory. Each first spins for
// `cycles` GPU clock cycles (so a missing wait shows on a GPU) and writes values exact in float.
// Not compiled into the stand-in driver: its PTX interpreter runs them.

__device__ __forceinline__ void contract_spin(long long cycles) {
#ifdef __CUDA_ARCH__
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
#endif
}

// A __device__ variable (not __constant__): 1024 floats that kernels read and write by name.
__device__ float contract_acc[1024];

// contract_acc[i] = value + i.
extern "C" __global__ void global_fill(float value, int n, long long cycles) {
  contract_spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) contract_acc[i] = value + i;
}

// contract_acc[i] = a * contract_acc[i] + b.
extern "C" __global__ void global_axpb(float a, float b, int n, long long cycles) {
  contract_spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) contract_acc[i] = a * contract_acc[i] + b;
}

// out[i] = a * contract_acc[i] + b.
extern "C" __global__ void global_read(float* out, float a, float b, int n, long long cycles) {
  contract_spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * contract_acc[i] + b;
}

// For each of the first `ways` pointers of the table: p[i] = a * p[i] + b.
extern "C" __global__ void chase_axpb(float* const* table, int ways, float a, float b, int n, long long cycles) {
  contract_spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int k = 0; k < ways; k++) table[k][i] = a * table[k][i] + b;
  }
}

// out[i] = table[0][i] (a read through a pointer that only device memory holds).
extern "C" __global__ void chase_read(float* out, const float* const* table, int n, long long cycles) {
  contract_spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[0][i];
}

// y[i] = y[i] * 3 + k + i, wrapping: every bit of every byte matters.
extern "C" __global__ void mix_u32(unsigned* y, unsigned k, int n, long long cycles) {
  contract_spin(cycles);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * 3u + k + (unsigned)i;
}

// Within each block, out[block + t] = in[block + blockDim - 1 - t] + value, through dynamic shared
// memory of blockDim floats.
extern "C" __global__ void block_reverse(float* out, const float* in, float value, int n, long long cycles) {
  extern __shared__ float tile[];
  contract_spin(cycles);
  int base = blockIdx.x * blockDim.x;
  int t = threadIdx.x;
  if (base + t < n) tile[t] = in[base + t];
  __syncthreads();
  int from = blockDim.x - 1 - t;
  if (base + t < n && base + from < n) out[base + t] = tile[from] + value;
}
