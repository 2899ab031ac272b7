// rl-sim: environments stepped in lock-step, all reading one shared parameter buffer, with a
// reduction over all environments' rewards each step.
#include "common.cuh"

// The policy: params holds n gains (in (0, 1)) then n scales (in (0, 1)); actions are in (-1, 1).
extern "C" __global__ void rl_policy(const float* __restrict__ state,
                                     const float* __restrict__ params,
                                     float* __restrict__ action, int n, int rounds) {
  KW_FOR_EACH(i, n) {
    float x = kw_logistic(kw_blend(state[i], params[i]), rounds);
    action[i] = (2.0f * x - 1.0f) * params[n + i];
  }
}

// The dynamics: the next state from the state, its right neighbour and the action.
extern "C" __global__ void rl_step(const float* __restrict__ state,
                                   const float* __restrict__ action,
                                   float* __restrict__ next, int n, int rounds) {
  KW_FOR_EACH(i, n) {
    int right = i == n - 1 ? 0 : i + 1;
    float drive = 0.5f * action[i] + 0.5f;
    float y = (0.5f * state[i] + 0.25f * state[right]) + 0.25f * drive;
    next[i] = kw_logistic(kw_squash(y), rounds);
  }
}

// One environment's reward, sum over i of state[i] - 0.25 action[i]^2, written to reward[0].
// One block of KW_REDUCE_THREADS threads.
extern "C" __global__ void rl_reward(const float* __restrict__ state,
                                     const float* __restrict__ action,
                                     float* __restrict__ reward, int n) {
  float partial = 0.0f;
  for (int i = threadIdx.x; i < n; i += KW_REDUCE_THREADS) {
    partial = partial + (state[i] - (0.25f * action[i]) * action[i]);
  }
  float sum = kw_block_sum(partial);
  if (threadIdx.x == 0) {
    reward[0] = sum;
  }
}

// The step's statistics over all environments: stats[0] = sum of rewards in environment order,
// stats[1] = the largest reward. One thread does it: m is small.
extern "C" __global__ void rl_total(const float* __restrict__ rewards, int m,
                                    float* __restrict__ stats) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float sum = 0.0f;
    float best = rewards[0];
    for (int e = 0; e < m; e++) {
      float r = rewards[e];
      sum = sum + r;
      best = r > best ? r : best;
    }
    stats[0] = sum;
    stats[1] = best;
  }
}
