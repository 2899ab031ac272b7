package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The stand-in CUDA driver that runs kernels on the CPU, for tests of child JVMs without a GPU. */
public final class StandInDriver {

  static final Path DIRECTORY = Path.of("../kernels/target/cpu-device");
  private static final Pattern CHECKSUM = Pattern.compile("\"checksum\":\"([0-9a-f]+)\"");

  private StandInDriver() {}

  /** Skips the test where the stand-in was not built (it is, where g++ is present). */
  public static void assumeBuilt() {
    assumeTrue(Files.isRegularFile(DIRECTORY.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + DIRECTORY + " (it is built where g++ is present): skipped");
  }

  /**
   * The environment that makes a child JVM's JCuda load the stand-in, ordering work by {@code seed};
   * a call on a destroyed stream stops the child, as it may crash a GPU's driver.
   */
  public static Map<String, String> environment(int seed) {
    return Map.of("LD_LIBRARY_PATH", DIRECTORY.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", Integer.toString(seed),
        "KW_CPU_DEVICE_STALE_STREAMS", "abort");
  }

  /**
   * Runs {@code WorkloadMain} with {@code args} (a workload's name first) on the stand-in ordering
   * work by {@code seed}, with the agent's {@code agentOptions} (null: without the agent).
   */
  static ChildJvm.Result workload(String agentOptions, int seed, String... args) throws Exception {
    return ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), agentOptions, java.util.List.of(),
        environment(seed), "dev.kernelweave.kernels.WorkloadMain", args);
  }

  /** The checksum a workload printed, after checking it exited cleanly. */
  static String checksum(ChildJvm.Result r) {
    assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    Matcher m = CHECKSUM.matcher(r.stdout());
    assertTrue(m.find(), r.stdout());
    return m.group(1);
  }
}
