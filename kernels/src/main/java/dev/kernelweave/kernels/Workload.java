package dev.kernelweave.kernels;

/**
 * One workload, one variant, one size, on the GPU.
 *
 * <p>Life cycle: {@link #setUp} once; then for each repetition {@link #reset}, {@link #run}, {@link
 * #output}; then {@link #close}. Only {@link #run} is timed: it goes from the first launch to the
 * final result on the host. Every repetition produces the same output bytes.
 */
public interface Workload extends AutoCloseable {

  /** The CPU side: sizes, kernels and reference. */
  Problem problem();

  /** Loads the module, allocates device and host memory, creates streams, events and handles. */
  void setUp();

  /**
   * Puts the inputs in place for one repetition (synchronous copies: untimed). The caller
   * synchronizes the context before {@link #run}.
   */
  void reset();

  /** One repetition, from the first launch until the result is on the host. */
  void run();

  /** The result of the last {@link #run}, as little-endian bytes. */
  byte[] output();

  /** Releases everything {@link #setUp} created. */
  @Override
  void close();
}
