package dev.kernelweave.kernels;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Runs a workload: set up, warm-up and timed repetitions, close. */
public final class TimedRepetitions {

  /**
   * What a run produced.
   *
   * @param millis wall-clock milliseconds of each timed repetition
   * @param output the output bytes of the last repetition
   * @param checksum SHA-256 hex of {@link #output}
   * @param unstable null when every repetition, warm-up included, gave the same bytes; otherwise
   *     which one first differed
   * @param warmups how many untimed repetitions ran before the timed ones
   * @param timedFrom the wall-clock instant the first timed repetition began (the warm-ups came
   *     before it): an agent's journal holds the timed repetitions' calls from then on
   */
  public record Result(
      List<Double> millis, byte[] output, String checksum, String unstable, int warmups, Instant timedFrom) {}

  private TimedRepetitions() {}

  /**
   * Sets {@code workload} up, runs untimed repetitions (at least {@code warmup}, and more until
   * {@code warmupTime} has passed since the first), then {@code reps} timed ones, and closes it.
   * Each repetition resets the inputs and synchronizes the context before the clock starts; the
   * clock stops when {@link Workload#run} returns, with the result on the host.
   *
   * <p>Why a time as well as a count: the JIT compiles a method fully only after thousands of
   * calls, so a count of repetitions that warms up a program of 500 launches a repetition leaves
   * one of 80 still running partly compiled code, in the program and in any agent it runs with.
   *
   * <p>Each repetition's output is compared with the first one's byte for byte, and hashed only
   * when it differs and at the end: hashing {@code pipeline}'s 16 MiB every repetition took longer
   * than its run itself, and so left it fewer warm-ups in the same time.
   */
  public static Result run(Workload workload, int warmup, Duration warmupTime, int reps) {
    if (warmup < 0 || warmupTime.isNegative() || reps < 1) {
      throw new IllegalArgumentException("warmup >= 0, warmupTime >= 0 and reps >= 1 required");
    }
    try (workload) {
      workload.setUp();
      List<Double> millis = new ArrayList<>(reps);
      byte[] output = null;
      byte[] first = null;
      String unstable = null;
      Instant timedFrom = null;
      int warmups = -1; // known once the warm-ups are over
      long warmupStart = System.nanoTime();
      for (int r = 0; warmups < 0 || r < warmups + reps; r++) {
        workload.reset();
        Cuda.synchronize();
        if (r == 0) {
          warmupStart = System.nanoTime(); // the warm-up time counts from the first run, not its reset
        }
        if (warmups < 0 && r >= warmup && System.nanoTime() - warmupStart >= warmupTime.toNanos()) {
          warmups = r;
          timedFrom = Instant.now();
        }
        long start = System.nanoTime();
        workload.run();
        long end = System.nanoTime();
        if (warmups >= 0) {
          millis.add((end - start) / 1e6);
        }
        output = workload.output();
        if (first == null) {
          // A copy: a workload may hand back the same array each time, refilled.
          first = output.clone();
        } else if (unstable == null) {
          unstable = differenceFromFirst(output, first, r + 1);
        }
      }
      return new Result(List.copyOf(millis), output, Outputs.sha256(output), unstable, warmups, timedFrom);
    }
  }

  /**
   * Null when repetition {@code repetition}'s {@code output} equals the first repetition's; otherwise
   * which repetition, both hashes and where the bytes differ.
   */
  static String differenceFromFirst(byte[] output, byte[] first, int repetition) {
    String difference = Outputs.difference(output, first);
    if (difference == null) {
      return null;
    }
    return "repetition " + repetition + " (warm-ups included) gave other bytes than the first: "
        + Outputs.sha256(output) + " vs " + Outputs.sha256(first) + "; " + difference;
  }
}
