// branches: independent chains of stencil steps over private buffers, all reading one shared
// weight buffer, joined at the end.
#include "common.cuh"

// One step of a chain: out = logistic^rounds(blend(stencil(in), weights shifted by step)).
extern "C" __global__ void branch_step(const float* __restrict__ in,
                                       const float* __restrict__ weights,
                                       float* __restrict__ out, int n, int step, int rounds) {
  KW_FOR_EACH(i, n) {
    float w = weights[(i + step) % n];
    out[i] = kw_logistic(kw_blend(kw_stencil(in, i, n), w), rounds);
  }
}

// The join: the mean of the 16 branch outputs, summed in branch order.
extern "C" __global__ void branch_join(
    const float* __restrict__ b0, const float* __restrict__ b1, const float* __restrict__ b2,
    const float* __restrict__ b3, const float* __restrict__ b4, const float* __restrict__ b5,
    const float* __restrict__ b6, const float* __restrict__ b7, const float* __restrict__ b8,
    const float* __restrict__ b9, const float* __restrict__ b10, const float* __restrict__ b11,
    const float* __restrict__ b12, const float* __restrict__ b13, const float* __restrict__ b14,
    const float* __restrict__ b15, float* __restrict__ out, int n) {
  KW_FOR_EACH(i, n) {
    float s = b0[i];
    s = s + b1[i];
    s = s + b2[i];
    s = s + b3[i];
    s = s + b4[i];
    s = s + b5[i];
    s = s + b6[i];
    s = s + b7[i];
    s = s + b8[i];
    s = s + b9[i];
    s = s + b10[i];
    s = s + b11[i];
    s = s + b12[i];
    s = s + b13[i];
    s = s + b14[i];
    s = s + b15[i];
    out[i] = s * 0.0625f;
  }
}
