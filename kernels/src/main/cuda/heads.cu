// heads: the elementwise kernel between layers of per-head matrix products (the products
// themselves are cuBLAS sgemm calls).
#include "common.cuh"

// x[h] = clamp(rint(2 y[h] + y[(h + 1) % heads]), -8, 8) / 8 for each of the heads, each of
// head_size floats. Inputs and outputs stay on a grid of multiples of 1/8 (see HeadsProblem).
extern "C" __global__ void heads_mix(const float* __restrict__ y, float* __restrict__ x,
                                     int head_size, int heads) {
  KW_FOR_EACH(idx, head_size * heads) {
    int h = idx / head_size;
    int i = idx - h * head_size;
    int next = h == heads - 1 ? 0 : h + 1;
    float v = rintf(2.0f * y[idx] + y[next * head_size + i]);
    v = v < -8.0f ? -8.0f : (v > 8.0f ? 8.0f : v);
    x[idx] = v * 0.125f;
  }
}
