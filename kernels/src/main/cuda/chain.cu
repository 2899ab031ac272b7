// chain: one long dependent chain of small in-place kernels on one buffer.
#include "common.cuh"

// x = logistic^rounds(blend(x, w)) in place, with a weight that depends on the step only.
extern "C" __global__ void chain_step(float* __restrict__ x, int n, int step, int rounds) {
  float w = (float) ((step * 7) & 15) * 0.0625f;
  KW_FOR_EACH(i, n) {
    x[i] = kw_logistic(kw_blend(x[i], w), rounds);
  }
}
