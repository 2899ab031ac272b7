package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaGraphDevice;
import dev.kernelweave.interceptor.jcuda.JCudaStreamDevice;
import dev.kernelweave.scheduler.Dispatch;
import dev.kernelweave.scheduler.LaunchWindows;
import dev.kernelweave.scheduler.OrderingRules;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.scheduler.WindowJudging;
import dev.kernelweave.scheduler.WindowTime;

/** One CUDA context's dispatch and the streams, events and graphs it issues on. */
final class ContextScheduling {

  final long context;
  final JCudaStreamDevice device;
  final Dispatch dispatch;
  /** Page-locked buffers for staged copies; guarded by the dispatch's lock. */
  final StagingBuffers staging = new StagingBuffers();

  /**
   * @param streams the normal lanes
   * @param priorityLanes whether high and low calls get lanes of their own, created with the
   *     device's greatest and least stream priorities
   * @param rules {@link OrderingRules#CUDA}, but for the fuzz through the agent ({@link InterceptorSettings#rules})
   * @param merge whether graphs merge independent launches of one kernel
   */
  ContextScheduling(AgentState state, long context, int streams, boolean graphs, boolean priorityLanes,
      OrderingRules rules, boolean merge) {
    this.context = context;
    int classLanes = Scheduler.classLanes(priorityLanes);
    this.device = new JCudaStreamDevice(Scheduler.poolLanes(streams, classLanes));
    this.dispatch = new Dispatch(device, streams, classLanes, rules,
        graphs ? new JCudaGraphDevice(device, state.libraries, merge ? MERGE_SOURCE : null) : null,
        graphs ? new HeldLaunches(state, context) : null);
    if (graphs && merge) {
      dispatch.windows().mergeLaunches(true);
    }
  }

  /** How known windows are issued ({@code judge=}). */
  void judge(WindowJudging mode) {
    if (dispatch.windows() != null) {
      dispatch.windows().judge(mode);
    }
  }

  /** The modules' PTX and its merged variants, as the interceptor learned them. */
  private static final JCudaGraphDevice.MergeSource MERGE_SOURCE = new JCudaGraphDevice.MergeSource() {
    @Override
    public String ptx(long function) {
      return Modules.ptxOf(function);
    }

    @Override
    public java.util.Map<String, dev.kernelweave.ptx.MergedKernel> variants(String ptx) {
      return PtxKernels.mergedVariants(ptx);
    }
  };

  /** Journals a held launch once issued, as {@link Calls#end} journals the others, and the windows' device times. */
  private static final class HeldLaunches implements LaunchWindows.Listener {
    private final AgentState state;
    private final long context;
    /** Reused for each window time: they are journaled under the context's lock, one at a time. */
    private final CallRecord time = new CallRecord();

    HeldLaunches(AgentState state, long context) {
      this.state = state;
      this.context = context;
    }

    @Override
    public void windowTimed(WindowTime t) {
      CallRecord r = time;
      r.reset();
      r.seq = state.sequence.incrementAndGet();
      r.kind = CallKind.WINDOW_TIME;
      r.context = context;
      Thread thread = Thread.currentThread();
      r.threadId = thread.getId();
      r.threadName = thread.getName();
      r.startNanos = Clock.epochNanos(t.issueStartNanos);
      r.durationNanos = t.deviceNanos;
      r.bytes = t.hostNanos;
      r.graphWindow = t.windowNumber;
      r.stream = t.lane;
      r.appStream = t.shape;
      r.name = t.inOrder ? CallKind.WINDOW_IN_ORDER : CallKind.WINDOW_AS_GRAPH;
      r.kernel = !t.judged ? "" : t.inOrderChosen ? CallKind.WINDOW_IN_ORDER : CallKind.WINDOW_AS_GRAPH;
      state.append(r); // not a call: neither the MBean's counters nor a JFR call event
    }

    @Override
    public void issued(CallRecord call) {
      state.callFinished(call);
    }

    @Override
    public void stopped(String why) {
      AgentLog.warnOnce("graphs-stopped", "graphs off, launches are issued at once: " + why);
    }

    @Override
    public void startedHolding() {
      state.deadline.startedHolding();
    }

    @Override
    public void routinesStopped(String why) {
      AgentLog.warnOnce("graph-routines-stopped", "cuBLAS calls are issued at once, launches still replayed: " + why);
    }
  }
}
