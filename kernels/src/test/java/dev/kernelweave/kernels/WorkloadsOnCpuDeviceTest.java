package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The workloads' host code, every variant, on the cpu-device (src/test/cpu-device): a libcuda.so.1
 * and libcublas.so.12 that run the kernels' CUDA source on the CPU and execute queued work in a
 * random order that respects only the dependencies the host code expressed. Run by the build's
 * {@code cpu-device} test execution, which builds those libraries with g++ and puts them on
 * LD_LIBRARY_PATH; skipped elsewhere.
 */
class WorkloadsOnCpuDeviceTest {

  private static final Map<String, String> CHECKSUMS = new ConcurrentHashMap<>();

  @BeforeAll
  static void onTheCpuDevice() {
    String path = System.getenv().getOrDefault("LD_LIBRARY_PATH", "");
    boolean built =
        Stream.of(path.split(":"))
            .filter(dir -> !dir.isEmpty())
            .anyMatch(
                dir -> dir.endsWith("cpu-device") && Files.exists(Path.of(dir, "libcuda.so.1")));
    assumeTrue(built, "cpu-device not built (g++ missing?) or not on LD_LIBRARY_PATH");
    assumeTrue(Gpu.available(), () -> "cpu-device did not load: " + Gpu.problem());
  }

  static Stream<Arguments> workloads() {
    return Workloads.names().stream()
        .flatMap(name -> Stream.of(Variant.values()).map(variant -> Arguments.of(name, variant)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("workloads")
  void matchesTheReferenceInEveryRepetitionAndTheVariantsAgree(String name, Variant variant) {
    // Five repetitions: each runs the queued work in another random order.
    TimedRepetitions.Result result =
        TimedRepetitions.run(Workloads.create(name, variant, Size.CHECK), 1, Duration.ZERO, 4);
    assertNull(result.unstable());
    assertNull(
        Outputs.difference(result.output(), Workloads.problem(name, Size.CHECK).reference()));
    String other = CHECKSUMS.putIfAbsent(name, result.checksum());
    if (other != null) {
      assertEquals(other, result.checksum());
    }
  }

  @Test
  void theTimedRepetitionsBeginAfterTheWarmUps() {
    List<Instant> runs = new ArrayList<>();
    TimedRepetitions.Result result = TimedRepetitions.run(recordingChain(runs, true, 0), 3, Duration.ZERO, 2);
    assertEquals(5, runs.size());
    assertEquals(3, result.warmups());
    assertTrue(
        result.timedFrom().isAfter(runs.get(2)) && !result.timedFrom().isAfter(runs.get(3)),
        "between the last warm-up " + runs.get(2) + " and the first timed run " + runs.get(3) + ": "
            + result.timedFrom());
  }

  @Test
  void warmUpsGoOnUntilTheirTimeHasPassed() {
    List<Instant> runs = new ArrayList<>();
    TimedRepetitions.Result result = TimedRepetitions.run(recordingChain(runs, false, 5), 2, Duration.ofMillis(60), 3);
    assertTrue(result.warmups() > 2, "more warm-ups than the 2 asked for: " + result.warmups());
    assertEquals(result.warmups() + 3, runs.size());
    assertEquals(3, result.millis().size());
    // Less 1 ms: the runs are stamped with the wall clock, the warm-up time is kept on nanoTime.
    assertTrue(
        Duration.between(runs.get(0), result.timedFrom()).toNanos() >= Duration.ofMillis(59).toNanos(),
        "timed from " + result.timedFrom() + ", warm-ups from " + runs.get(0));
  }

  @Test
  void aRepetitionThatRefillsTheSameOutputArrayOtherwiseIsCaught() {
    byte[] reused = new byte[8];
    int[] runs = {0};
    Workload refilling = new ChainBacked() {
      @Override
      public void run() {
        runs[0]++;
      }

      @Override
      public byte[] output() {
        reused[0] = (byte) (runs[0] >= 3 ? 1 : 0);
        return reused;
      }
    };
    TimedRepetitions.Result result = TimedRepetitions.run(refilling, 1, Duration.ZERO, 3);
    assertTrue(result.unstable() != null && result.unstable().startsWith("repetition 3 "), String.valueOf(result.unstable()));
  }

  /**
   * {@code chain} at check size, noting when each run began; a run computes the chain when {@code
   * compute} and sleeps {@code millis}.
   */
  private static Workload recordingChain(List<Instant> runs, boolean compute, long millis) {
    return new ChainBacked() {
      @Override
      public void run() {
        runs.add(Instant.now());
        if (compute) {
          chain.run();
        }
        try {
          Thread.sleep(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }

      @Override
      public byte[] output() {
        return chain.output();
      }
    };
  }

  /** A workload on {@code chain} at check size: its problem, set-up, reset and close. */
  private abstract static class ChainBacked implements Workload {
    final Workload chain = Workloads.create("chain", Variant.SERIAL, Size.CHECK);

    @Override
    public Problem problem() {
      return chain.problem();
    }

    @Override
    public void setUp() {
      chain.setUp();
    }

    @Override
    public void reset() {
      chain.reset();
    }

    @Override
    public void close() {
      chain.close();
    }
  }

  @Test
  void cuInitProgramSaysOk() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(0, CuInitMain.run(new PrintStream(out, true, StandardCharsets.UTF_8)));
    assertEquals("cuInit ok", out.toString(StandardCharsets.UTF_8).strip());
  }
}
