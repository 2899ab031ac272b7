// Kernels whose merged variants (KernelMerging) the tests run against separate launches:
// MergedKernelsOnCpuDeviceTest on the stand-in, MergedKernelsGpuTest on a GPU. Each reads the
// grid in a way a wrong remapping of %ctaid or %nctaid would show. See build-merge-ptx.sh.

// A grid-stride loop: the stride must be the instance's grid, not the merged launch's.
extern "C" __global__ void grid_stride_scale(const float* in, float* out, int n, float a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = a * in[i] + (float)gridDim.x;
  }
}

// Every block writes its coordinates and its grid at its linear index.
extern "C" __global__ void grid_coordinates(int* out) {
  int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0) {
    int* o = out + 8 * block;
    o[0] = blockIdx.x;
    o[1] = blockIdx.y;
    o[2] = blockIdx.z;
    o[3] = gridDim.x;
    o[4] = gridDim.y;
    o[5] = gridDim.z;
  }
}

// Parameters by value at several alignments, loaded as vectors from the parameter space.
struct Affine {
  float scale;
  float shift;
  int n;
};

extern "C" __global__ void struct_affine(Affine p, const float* in, float4 bias, double weight, char flag,
                                         float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += gridDim.x * blockDim.x) {
    float b = (i & 3) == 0 ? bias.x : (i & 3) == 1 ? bias.y : (i & 3) == 2 ? bias.z : bias.w;
    out[i] = p.scale * in[i] + p.shift + b + (float)weight + (flag ? 1.0f : 0.0f);
  }
}

// One partial sum per block, through dynamic shared memory.
extern "C" __global__ void block_partial_sums(const float* in, float* partial, int n) {
  extern __shared__ float cache[];
  int t = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  cache[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) cache[t] += cache[t + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = cache[0];
}

// A 2-D grid: rows from blockIdx.y, the row's columns strided over gridDim.x.
extern "C" __global__ void rows_2d(const float* in, float* out, int cols) {
  int row = blockIdx.y;
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {
    out[row * cols + c] = in[row * cols + c] * (float)(row + 1) + (float)gridDim.y;
  }
}
