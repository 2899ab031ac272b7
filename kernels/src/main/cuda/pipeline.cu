// pipeline: the compute stage of each batch, between its copy in and its copy out.
#include "common.cuh"

extern "C" __global__ void pipe_prepare(const float* __restrict__ in, float* __restrict__ tmp,
                                        int n, int rounds) {
  KW_FOR_EACH(i, n) {
    tmp[i] = kw_logistic(kw_squash(in[i]), rounds);
  }
}

extern "C" __global__ void pipe_smooth(const float* __restrict__ tmp, float* __restrict__ out,
                                       int n, int rounds) {
  KW_FOR_EACH(i, n) {
    out[i] = kw_logistic(kw_squash(kw_stencil(tmp, i, n)), rounds);
  }
}

extern "C" __global__ void pipe_finish(float* __restrict__ out, int n, int rounds) {
  KW_FOR_EACH(i, n) {
    out[i] = kw_logistic(kw_squash(out[i]), rounds);
  }
}
