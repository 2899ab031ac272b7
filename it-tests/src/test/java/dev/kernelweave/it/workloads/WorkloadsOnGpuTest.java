package dev.kernelweave.it.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.kernels.Gpu;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.TimedRepetitions;
import dev.kernelweave.kernels.Workloads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every workload, every variant (serial, tuned, graph), at check size on the GPU, in this JVM (no
 * agent): the output equals the CPU reference bit for bit, every repetition gives the same bytes,
 * and every variant gives serial's checksum.
 */
class WorkloadsOnGpuTest {

  /** One warm-up and two timed repetitions: inputs are put back between repetitions. */
  private static final int WARMUP = 1;

  private static final int REPS = 2;

  private static final Map<String, byte[]> REFERENCES = new ConcurrentHashMap<>();

  @BeforeEach
  void onAGpu() {
    assumeTrue(Gpu.available(), () -> "no GPU: " + Gpu.problem());
  }

  static Stream<String> names() {
    return Workloads.names().stream();
  }

  static Stream<Arguments> variants() {
    return names()
        .flatMap(name -> Stream.of(Variant.values()).map(variant -> Arguments.of(name, variant)));
  }

  private static TimedRepetitions.Result run(String name, Variant variant) {
    return TimedRepetitions.run(Workloads.create(name, variant, Size.CHECK), WARMUP, Duration.ZERO, REPS);
  }

  private static byte[] reference(String name) {
    return REFERENCES.computeIfAbsent(name, n -> Workloads.problem(n, Size.CHECK).reference());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("variants")
  void equalsTheCpuReference(String name, Variant variant) {
    TimedRepetitions.Result result = run(name, variant);
    assertNull(result.unstable(), "repetitions differ");
    assertNull(
        Outputs.difference(result.output(), reference(name)),
        name + " " + variant.label() + " vs the CPU reference");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("names")
  void serialTunedAndGraphChecksumsAreEqual(String name) {
    String serial = run(name, Variant.SERIAL).checksum();
    assertEquals(serial, run(name, Variant.TUNED).checksum(), name + " tuned");
    assertEquals(serial, run(name, Variant.GRAPH).checksum(), name + " graph");
  }
}
