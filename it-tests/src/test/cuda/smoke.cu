// Small kernels for the agent's smoke programs: each reads and writes through its parameters only.
extern "C" __global__ void axpb(float* y, const float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b + y[i] * 0.5f;
}

extern "C" __global__ void spin_scale(float* y, int n, int iterations) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = y[i];
    for (int k = 0; k < iterations; k++) v = v * 0.999f + 0.001f;
    y[i] = v;
  }
}

extern "C" __global__ void sum_into(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
