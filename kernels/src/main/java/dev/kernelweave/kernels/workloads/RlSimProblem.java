package dev.kernelweave.kernels.workloads;

import static dev.kernelweave.kernels.CpuMath.blend;
import static dev.kernelweave.kernels.CpuMath.blockSum;
import static dev.kernelweave.kernels.CpuMath.logistic;
import static dev.kernelweave.kernels.CpuMath.squash;

import dev.kernelweave.kernels.CpuMath;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;

/**
 * {@code rl-sim}: {@code envs} environments stepped in lock-step for {@code steps} steps. Per
 * environment and step: a policy kernel (reading the shared parameters), a dynamics kernel and a
 * reward kernel (a one-block reduction writing the environment's slot of a shared reward buffer).
 * Per step: one kernel over all rewards (sum and maximum) and a synchronous 8-byte read-back. The
 * output is the statistics of every step ({@code steps x 2} floats) followed by every environment's
 * final state ({@code envs x n} floats).
 *
 * @param envs environments
 * @param steps steps
 * @param n floats of state per environment
 * @param blocks blocks per policy and dynamics launch (reward: one block of 256, total: one thread)
 * @param threads threads per block of those launches
 * @param rounds logistic rounds per element in the policy and dynamics kernels
 */
public record RlSimProblem(int envs, int steps, int n, int blocks, int threads, int rounds)
    implements Problem {

  public static final String NAME = "rl-sim";
  static final String POLICY = "rl_policy";
  static final String STEP = "rl_step";
  static final String REWARD = "rl_reward";
  static final String TOTAL = "rl_total";

  /** Floats of statistics read back per step: the sum of the rewards and the largest. */
  public static final int STATS = 2;

  public RlSimProblem {
    if (envs < 1 || steps < 1 || n < 2 || blocks < 1 || threads < 1 || rounds < 0) {
      throw Problem.badSizes(RlSimProblem.class, envs, steps, n, blocks, threads, rounds);
    }
  }

  public static RlSimProblem of(Size size) {
    return size == Size.CHECK
        ? new RlSimProblem(16, 8, 512, 2, 256, 8)
        : new RlSimProblem(16, 32, 2048, 2, 256, 1024);
  }

  /** The shared parameters (n gains, then n scales) and each environment's initial state. */
  public record Inputs(float[] params, float[][] states) {}

  public Inputs inputs() {
    Seeded seeded = new Seeded(0x726c2d73696dL);
    return new Inputs(seeded.unit(2 * n), seeded.unit(envs, n));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String sizes() {
    return envs
        + " envs x "
        + steps
        + " steps x 3 kernels (policy, dynamics, reward), "
        + n
        + " floats each, "
        + Problem.launches(blocks, threads, rounds)
        + "; per step 1 total kernel and an 8-byte synchronous read-back";
  }

  @Override
  public ModuleKernels moduleKernels() {
    return new ModuleKernels("rlsim", POLICY, STEP, REWARD, TOTAL);
  }

  /** Which of an environment's two state buffers holds its state after {@code step} steps. */
  static int stateAfter(int step) {
    return step % 2;
  }

  /** Words of output: the statistics of every step, then every final state. */
  int outputWords() {
    return steps * STATS + envs * n;
  }

  @Override
  public byte[] reference() {
    Inputs inputs = inputs();
    float[] params = inputs.params();
    float[][] states = new float[envs][];
    for (int e = 0; e < envs; e++) {
      states[e] = inputs.states()[e].clone();
    }
    float[] stats = new float[steps * STATS];
    float[] rewards = new float[envs];
    float[] action = new float[n];
    float[] terms = new float[n];
    for (int s = 0; s < steps; s++) {
      for (int e = 0; e < envs; e++) {
        float[] state = states[e];
        float[] next = new float[n];
        policy(state, params, action, rounds);
        dynamics(state, action, next, rounds);
        rewards[e] = reward(next, action, terms);
        states[e] = next;
      }
      System.arraycopy(total(rewards), 0, stats, s * STATS, STATS);
    }
    Outputs.Builder out = Outputs.builder(outputWords()).floats(stats);
    for (float[] state : states) {
      out.floats(state);
    }
    return out.toBytes();
  }

  /** {@code rl_policy}. */
  static void policy(float[] state, float[] params, float[] action, int rounds) {
    int n = state.length;
    for (int i = 0; i < n; i++) {
      float x = logistic(blend(state[i], params[i]), rounds);
      action[i] = (2.0f * x - 1.0f) * params[n + i];
    }
  }

  /** {@code rl_step}. */
  static void dynamics(float[] state, float[] action, float[] next, int rounds) {
    int n = state.length;
    for (int i = 0; i < n; i++) {
      int right = i == n - 1 ? 0 : i + 1;
      float drive = 0.5f * action[i] + 0.5f;
      float y = (0.5f * state[i] + 0.25f * state[right]) + 0.25f * drive;
      next[i] = logistic(squash(y), rounds);
    }
  }

  /** {@code rl_reward}, using {@code terms} as scratch. */
  static float reward(float[] state, float[] action, float[] terms) {
    for (int i = 0; i < state.length; i++) {
      terms[i] = state[i] - (0.25f * action[i]) * action[i];
    }
    return blockSum(terms);
  }

  /** {@code rl_total}: the sum of the rewards in environment order and the largest. */
  static float[] total(float[] rewards) {
    float sum = 0.0f;
    float best = rewards[0];
    for (float r : rewards) {
      sum = sum + r;
      best = r > best ? r : best;
    }
    return new float[] {sum, best};
  }

  /** Threads of the reward kernel's single block. */
  static int rewardThreads() {
    return CpuMath.REDUCE_THREADS;
  }
}
