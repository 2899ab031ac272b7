// dynamic: a router scores the experts, the host picks the best few, each picked expert runs a
// short chain over its own buffers, and a combine kernel mixes their outputs into the input.
#include "common.cuh"

// scores[e] = sum over i of (x[i] - 0.5) * router[e * n + i]. One block of KW_REDUCE_THREADS
// threads per expert.
extern "C" __global__ void moe_router(const float* __restrict__ x,
                                      const float* __restrict__ router,
                                      float* __restrict__ scores, int n) {
  const float* w = router + (size_t) blockIdx.x * n;
  float partial = 0.0f;
  for (int i = threadIdx.x; i < n; i += KW_REDUCE_THREADS) {
    partial = partial + (x[i] - 0.5f) * w[i];
  }
  float sum = kw_block_sum(partial);
  if (threadIdx.x == 0) {
    scores[blockIdx.x] = sum;
  }
}

// One step of an expert: out = logistic^rounds(blend(mix of in, x and in's right neighbour, w)).
extern "C" __global__ void moe_expert_step(const float* __restrict__ x,
                                           const float* __restrict__ in,
                                           const float* __restrict__ weights,
                                           float* __restrict__ out, int n, int rounds) {
  KW_FOR_EACH(i, n) {
    int right = i == n - 1 ? 0 : i + 1;
    float y = (0.5f * in[i] + 0.25f * x[i]) + 0.25f * in[right];
    out[i] = kw_logistic(kw_blend(y, weights[i]), rounds);
  }
}

// x = (x + sum of g_j h_j, in rank order) / 2, in place. The gates sum to one.
extern "C" __global__ void moe_combine(float* __restrict__ x,
                                       const float* __restrict__ h0, const float* __restrict__ h1,
                                       const float* __restrict__ h2, const float* __restrict__ h3,
                                       float g0, float g1, float g2, float g3, int n) {
  KW_FOR_EACH(i, n) {
    float m = ((g0 * h0[i] + g1 * h1[i]) + g2 * h2[i]) + g3 * h3[i];
    x[i] = 0.5f * x[i] + 0.5f * m;
  }
}
