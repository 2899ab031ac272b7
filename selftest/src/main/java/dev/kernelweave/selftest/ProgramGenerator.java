package dev.kernelweave.selftest;

/**
 * Makes random, well-formed programs that are rich in the orderings a scheduler can get wrong:
 * buffers read by many calls and written by one, ranges at offsets into one allocation, writes to
 * buffers just read (write-after-read), reads of buffers just written (read-after-write), frees of
 * buffers still in use followed by allocations that reuse their addresses, synchronous reads in the
 * middle, context synchronizations, opaque calls, application streams and events, and several
 * application threads interleaved; and the {@link Shape}s where only CUDA's own stream semantics make
 * a host observation valid: blocking and non-blocking streams, the legacy and per-thread handles,
 * host memory the device writes, {@code __constant__} memory, kernels without PTX, host functions.
 *
 * <p>Application threads are interleaved calls with a thread number, made one after another by the
 * runner: the scheduler sees several threads on one context, the device one caller.
 *
 * <p>Deterministic: the same seed gives the same program.
 */
public final class ProgramGenerator {

  private final int maxCalls;

  /**
   * @param maxCalls an upper bound on the calls in a program, its first repeated window aside (more
   *     calls: longer, rarer bugs)
   */
  public ProgramGenerator(int maxCalls) {
    if (maxCalls < 8) {
      throw new IllegalArgumentException("maxCalls must be at least 8, was " + maxCalls);
    }
    this.maxCalls = maxCalls;
  }

  public ProgramGenerator() {
    this(80);
  }

  public Program generate(long seed) {
    return new ProgramBuilder(seed, maxCalls).build();
  }
}
