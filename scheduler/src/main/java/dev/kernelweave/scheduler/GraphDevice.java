package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.ptx.MergedLaunchTable;

/**
 * What the scheduler needs from the device to issue launches it held ({@link LaunchWindows}):
 * one at a time, or captured together as a CUDA graph and replayed.
 *
 * <p>Implemented over JCuda in the interceptor and simulated in the self-test. Called only while
 * the scheduler's owner holds its lock, on a thread where the context is current.
 */
public interface GraphDevice {

  /**
   * Launches a held kernel on {@code lane} as the application launched it: the function, grid,
   * block, shared memory and parameter bytes of {@code call}.
   *
   * @return the CUDA result of the launch
   */
  int launch(CallRecord call, int lane);

  /**
   * Captures {@code count} held launches into an instantiated graph in which launch {@code i} runs
   * after the launches {@code predecessors[predecessorStart[i] .. predecessorStart[i+1])} (indices
   * below {@code i}) and after nothing else. Launching the graph does not run them.
   *
   * @return a handle for {@link #launchGraph} and {@link #destroyGraph}, never 0
   * @throws RuntimeException when capturing or instantiating fails; nothing is then left behind
   */
  long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors);

  /**
   * Enqueues the graph on {@code lane}: its launches run after the lane's earlier work, and the
   * lane's later work runs after all of them.
   *
   * @return the CUDA result of the graph launch
   */
  int launchGraph(long graph, int lane);

  /** Frees a graph; one still running finishes first. */
  void destroyGraph(long graph);

  /**
   * A kernel's merged variant ({@code ptx/KernelMerging}) ready to launch on this device: the
   * function handle to launch with the parameters {@code (u64 table, u32 count)}, and the layout of
   * the table it reads.
   */
  record MergedFunction(long function, MergedLaunchTable table) {}

  /**
   * The merged variant of the kernel {@code launch} launches, loaded once per context and module
   * and then cached by the device; null where there is none: the device does not merge, the
   * kernel's code is unknown or refused, or the variant failed to load. Never throws.
   */
  default MergedFunction mergedFunction(CallRecord launch) {
    return null;
  }

  /**
   * Copies a merged launch's table into device memory of its own, aligned for any table (256
   * bytes), which stays until {@link #freeTable}: the owner of the graph that reads it frees it
   * with the graph.
   *
   * @return the table's device address
   * @throws RuntimeException when the memory cannot be had or written; nothing is then left behind
   */
  default long uploadTable(byte[] table) {
    throw new UnsupportedOperationException("this device does not merge launches");
  }

  /** Frees a table {@link #uploadTable} returned, once no graph that reads it can run any more. */
  default void freeTable(long address) {}
}
