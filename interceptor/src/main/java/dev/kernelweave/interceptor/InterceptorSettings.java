package dev.kernelweave.interceptor;

import dev.kernelweave.call.ThreadPriorities;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.scheduler.OrderingRules;
import dev.kernelweave.scheduler.WindowJudging;
import java.util.function.Supplier;

/**
 * What the interceptor needs to know from the agent's options.
 *
 * @param mode schedule or pass through
 * @param streams the agent's streams per CUDA context
 * @param ptx whether kernels' read/write sets come from their PTX
 * @param graphs whether repeated windows of launches are held and replayed as CUDA graphs
 * @param journal opens the journal on the first intercepted call, so that a program that never
 *     touches CUDA gets no directory and no thread
 * @param priorities which class each thread's calls get; with any but {@link ThreadPriorities#OFF},
 *     contexts keep lanes per class
 * @param judge how known windows are issued: as the device judges from sampled times, between
 *     their graph and their launches in order, always as their graph, or always in order
 * @param merge whether a window's graph merges independent launches of one kernel into one launch
 *     of its merged variant ({@code scheduler/LaunchMerging}); only with graphs and PTX
 * @param handBack whether the agent hands the program back, for good, where threads calling one
 *     context at once cost more than the agent gives back ({@code scheduler/SharedContextCheck})
 * @param rules the orderings kept and the call table calls are placed by: {@link OrderingRules#CUDA},
 *     but for the fuzz that plays programs through the agent with a scheduler broken on purpose
 */
public record InterceptorSettings(Mode mode, int streams, boolean ptx, boolean graphs,
    Supplier<LaunchJournal> journal, ThreadPriorities priorities, WindowJudging judge, boolean merge,
    boolean handBack, OrderingRules rules) {

  /** Without merging, handing back where threads contend, with CUDA's rules. */
  public InterceptorSettings(Mode mode, int streams, boolean ptx, boolean graphs, Supplier<LaunchJournal> journal,
      ThreadPriorities priorities, WindowJudging judge) {
    this(mode, streams, ptx, graphs, journal, priorities, judge, false, true, OrderingRules.CUDA);
  }

  /** With the device judging the windows, without merging, with CUDA's rules ({@link OrderingRules#CUDA}). */
  public InterceptorSettings(Mode mode, int streams, boolean ptx, boolean graphs, Supplier<LaunchJournal> journal,
      ThreadPriorities priorities) {
    this(mode, streams, ptx, graphs, journal, priorities, WindowJudging.ON, false, true, OrderingRules.CUDA);
  }

  /** With the default priorities, {@link ThreadPriorities#THREAD}. */
  public InterceptorSettings(Mode mode, int streams, boolean ptx, boolean graphs, Supplier<LaunchJournal> journal) {
    this(mode, streams, ptx, graphs, journal, ThreadPriorities.THREAD);
  }
}
