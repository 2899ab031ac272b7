package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged agent, built on Java 17, scheduling a workload over the stand-in driver under the
 * newer JDKs it supports: the same bytes as without the agent, a journal, and no warning of the
 * agent's or of its Chronicle's ({@code sun.misc.Unsafe} on 24 and later). A JDK not
 * installed under {@code /usr/lib/jvm} is skipped with its name.
 */
class AgentOnOtherJdksTest {

  private static final Path JVMS = Path.of("/usr/lib/jvm");
  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  private static final Pattern CHECKSUM = Pattern.compile("\"checksum\":\"([0-9a-f]+)\"");
  private static final String WORKLOAD = "dev.kernelweave.kernels.WorkloadMain";
  private static final String[] ARGS = {"dynamic", "--size", "check", "--warmup", "0", "--reps", "1"};

  @ParameterizedTest
  @ValueSource(ints = {21, 25})
  void scheduledWorkloadGivesTheReferenceBytes(int feature) throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    Optional<Path> home = jdk(feature);
    assumeTrue(home.isPresent(), "no JDK " + feature + " under " + JVMS + ": skipped");
    String java = ChildJvm.java(home.get().toString());
    Map<String, String> env = Map.of("LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", "2");
    String plain = checksum(ChildJvm.run(java, null, List.of(), env, WORKLOAD, ARGS));
    Path journal = Files.createTempDirectory("kw-jdk" + feature).resolve("journal");
    ChildJvm.Result agent = ChildJvm.run(java, "log=debug,journal=" + journal, List.of(), env, WORKLOAD, ARGS);
    assertEquals(plain, checksum(agent), agent.stderr());
    assertTrue(agent.stderr().contains("instrumented jcuda.driver.JCudaDriver"), agent.stderr());
    assertFalse(agent.stderr().contains("[kernelweave] warning"), agent.stderr());
    // The JDK's native-access warnings on 24 and later are JCuda's; nothing is Chronicle's.
    assertFalse(agent.stderr().contains("sun.misc.Unsafe"), agent.stderr());
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
    assertEquals(0, tail.exitCode(), tail.stderr());
    assertTrue(tail.stdout().lines().anyMatch(l -> l.contains(" cuLaunchKernel ") && l.matches(".* s[0-9]+ .*")),
        "launches on the agent's streams:\n" + tail.stdout());
    System.out.println("[jdk " + feature + "] " + home.get() + ": same bytes with the agent, calls scheduled");
  }

  /** A JDK of that feature release under /usr/lib/jvm, by the name Debian and Temurin packages give it. */
  private static Optional<Path> jdk(int feature) throws IOException {
    if (!Files.isDirectory(JVMS)) {
      return Optional.empty();
    }
    Pattern name = Pattern.compile("(?:java|jdk|openjdk|temurin)-" + feature + "(?:[-.].*)?");
    try (Stream<Path> homes = Files.list(JVMS)) {
      return homes.filter(h -> name.matcher(h.getFileName().toString()).matches())
          .filter(h -> Files.isExecutable(h.resolve("bin/java")))
          .sorted()
          .findFirst();
    }
  }

  private static String checksum(ChildJvm.Result r) {
    assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    Matcher m = CHECKSUM.matcher(r.stdout());
    assertTrue(m.find(), r.stdout());
    return m.group(1);
  }
}
