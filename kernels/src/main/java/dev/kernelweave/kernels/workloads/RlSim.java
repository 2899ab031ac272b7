package dev.kernelweave.kernels.workloads;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.DeviceWorkload;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.PinnedFloats;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;

/** {@code rl-sim} on the GPU; see {@link RlSimProblem}. */
public abstract class RlSim extends DeviceWorkload<RlSimProblem> {

  public static Workload create(RlSimProblem problem, Variant variant) {
    return variant.create(problem, Serial::new, Tuned::new, Graph::new);
  }

  private final RlSimProblem.Inputs inputs;
  private Kernel policy;
  private Kernel dynamics;
  private Kernel reward;
  private Kernel total;
  private CUdeviceptr params;

  /** Per environment, two state buffers used in turn. */
  private CUdeviceptr[][] states;

  private CUdeviceptr[] actions;

  /** One float per environment. */
  private CUdeviceptr rewards;

  CUdeviceptr stats;

  RlSim(RlSimProblem problem) {
    super(problem);
    this.inputs = problem.inputs();
  }

  @Override
  protected void allocate(CudaScope.Module module) {
    policy = module.kernel(RlSimProblem.POLICY);
    dynamics = module.kernel(RlSimProblem.STEP);
    reward = module.kernel(RlSimProblem.REWARD);
    total = module.kernel(RlSimProblem.TOTAL);
    params = cuda.floats(2L * p.n());
    states = new CUdeviceptr[p.envs()][];
    actions = new CUdeviceptr[p.envs()];
    for (int e = 0; e < p.envs(); e++) {
      states[e] = new CUdeviceptr[] {cuda.floats(p.n()), cuda.floats(p.n())};
      actions[e] = cuda.floats(p.n());
    }
    rewards = cuda.floats(p.envs());
    stats = cuda.floats(RlSimProblem.STATS);
  }

  @Override
  public void reset() {
    Cuda.upload(params, inputs.params());
    for (int e = 0; e < p.envs(); e++) {
      Cuda.upload(states[e][RlSimProblem.stateAfter(0)], inputs.states()[e]);
    }
  }

  /** Step {@code s} of environment {@code e}: policy, dynamics, reward. */
  void launchEnvStep(int e, int s, CUstream stream) {
    CUdeviceptr state = states[e][RlSimProblem.stateAfter(s)];
    CUdeviceptr next = states[e][RlSimProblem.stateAfter(s + 1)];
    policy.launch(p.blocks(), p.threads(), stream, state, params, actions[e], p.n(), p.rounds());
    dynamics.launch(p.blocks(), p.threads(), stream, state, actions[e], next, p.n(), p.rounds());
    reward.launch(
        1, RlSimProblem.rewardThreads(), stream, next, actions[e], Cuda.offset(rewards, e), p.n());
  }

  void launchTotal(CUstream stream) {
    total.launch(1, 32, stream, rewards, p.envs(), stats);
  }

  /** Environment {@code e}'s state buffer after the last step. */
  CUdeviceptr finalState(int e) {
    return states[e][RlSimProblem.stateAfter(p.steps())];
  }

  /** Everything on the default stream; synchronous copies into Java arrays. */
  static final class Serial extends RlSim {
    private final float[] history;
    private final float[][] finals;
    private final float[] stepStats = new float[RlSimProblem.STATS];

    Serial(RlSimProblem problem) {
      super(problem);
      history = new float[problem.steps() * RlSimProblem.STATS];
      finals = new float[problem.envs()][problem.n()];
    }

    @Override
    public void run() {
      for (int s = 0; s < p.steps(); s++) {
        for (int e = 0; e < p.envs(); e++) {
          launchEnvStep(e, s, null);
        }
        launchTotal(null);
        Cuda.download(stepStats, stats);
        System.arraycopy(stepStats, 0, history, s * RlSimProblem.STATS, RlSimProblem.STATS);
      }
      for (int e = 0; e < p.envs(); e++) {
        Cuda.download(finals[e], finalState(e));
      }
    }

    @Override
    public byte[] output() {
      Outputs.Builder out = Outputs.builder(p.outputWords()).floats(history);
      for (float[] state : finals) {
        out.floats(state);
      }
      return out.toBytes();
    }
  }

  /**
   * A stream per environment; the total waits on every environment's reward on its own stream,
   * whose read-back the host waits for. That host wait also orders the next step's writes after
   * this step's reads, so no other event is needed.
   */
  static class Tuned extends RlSim {
    private CUstream[] streams;
    private CUevent[] envDone;
    private CUstream main;

    /** The statistics of every step, then every final state. */
    private PinnedFloats statsAndFinals;

    /**
     * Issues an even step, then an odd one: a step reads one state buffer of each environment and
     * writes the other, so steps of one parity issue the same work.
     */
    private final Runnable[] stepOfParity = new Runnable[2];

    Tuned(RlSimProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      streams = cuda.streams(p.envs());
      envDone = cuda.events(p.envs());
      main = cuda.stream();
      statsAndFinals = cuda.pinnedFloats(p.outputWords());
      for (int parity = 0; parity < stepOfParity.length; parity++) {
        int step = parity;
        stepOfParity[parity] = issuing(main, streams, () -> queueStep(step));
      }
    }

    /** Step {@code s} of every environment on its stream, then the total on {@code main}. */
    private void queueStep(int s) {
      for (int e = 0; e < p.envs(); e++) {
        launchEnvStep(e, s, streams[e]);
        cuEventRecord(envDone[e], streams[e]);
        cuStreamWaitEvent(main, envDone[e], 0);
      }
      launchTotal(main);
    }

    @Override
    public void run() {
      for (int s = 0; s < p.steps(); s++) {
        stepOfParity[s % stepOfParity.length].run();
        statsAndFinals.copyFromDevice(s * RlSimProblem.STATS, stats, RlSimProblem.STATS, main);
        cuStreamSynchronize(main);
      }
      int at = p.steps() * RlSimProblem.STATS;
      for (int e = 0; e < p.envs(); e++) {
        statsAndFinals.copyFromDevice(at + e * p.n(), finalState(e), p.n(), main);
      }
      cuStreamSynchronize(main);
    }

    @Override
    public byte[] output() {
      return Outputs.floats(statsAndFinals.toArray());
    }
  }

  /**
   * The tuned twin's steps as two graphs captured once: a step reads one state buffer of each
   * environment and writes the other, so even steps and odd steps differ only in which is which
   * and every step replays the graph of its parity on {@code main} (the environments' streams
   * forked from it and joined back before the total). The 8-byte copy of the statistics and the
   * host's wait after every step stay outside the graphs: the host reads them before the next
   * step, as the program does.
   */
  static final class Graph extends Tuned implements GraphTwin {
    Graph(RlSimProblem problem) {
      super(problem);
    }
  }
}
