package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The packaged agent in a separate JVM, on any machine: options, programs without CUDA, newer JDKs. */
class AgentStartupTest {

  private static final Path JDK_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

  @Test
  void jarManifestAndVersionCommandCarryTheProjectVersion() throws Exception {
    String projectVersion = System.getProperty("project.version");
    assertNotNull(projectVersion, "the build passes project.version to the tests");
    try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
      Attributes main = jar.getManifest().getMainAttributes();
      assertEquals(projectVersion, main.getValue("Implementation-Version"));
      assertEquals("KernelWeave", main.getValue("Implementation-Title"));
    }
    for (String command : List.of("--version", "version")) {
      ChildJvm.Result r = ChildJvm.command(command);
      assertEquals(0, r.exitCode(), r.stderr());
      assertEquals("kernelweave " + projectVersion, r.stdout().strip());
    }
  }

  /** Where the agent jar carries picocli. */
  private static final String SHADED_PICOCLI = "dev.kernelweave.shaded.picocli.";

  @Test
  void picocliIsRelocatedInTheJarAndLoadedByTheCommandLine() throws Exception {
    try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
      assertNotNull(jar.getEntry(SHADED_PICOCLI.replace('.', '/') + "CommandLine.class"));
      assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("picocli/")), "no picocli at its own name");
    }
    // The count the start-up test asserts to be 0, seen to be positive where picocli is used.
    Path log = Files.createTempFile("kw-cli-classes", ".log");
    try {
      ChildJvm.Result r = ChildJvm.start(List.of(ChildJvm.java(System.getProperty("java.home")),
          "-Xlog:class+load:file=" + log, "-jar", ChildJvm.agentJar().toString(), "--version"), Map.of());
      assertEquals(0, r.exitCode(), r.stderr());
      assertTrue(Files.readAllLines(log).stream().anyMatch(l -> l.contains(" " + SHADED_PICOCLI + "CommandLine ")),
          "the command line runs on the relocated picocli");
    } finally {
      Files.deleteIfExists(log);
    }
  }

  @Test
  void badOptionValueIsNamedWithTheAcceptedValuesAndTheProgramKeepsItsExitCode() throws Exception {
    ChildJvm.Result r = ChildJvm.run("mode=fast", PlainPrograms.NoCuda.class, "7");
    assertEquals(7, r.exitCode());
    assertTrue(r.stdout().contains("hello from a program without CUDA"));
    assertTrue(r.stderr().contains("mode=fast"), r.stderr());
    assertTrue(r.stderr().contains("schedule or passthrough"), r.stderr());
    assertEquals(1, r.stderr().lines().count(), "one line: " + r.stderr());
  }

  @Test
  void badValueFromTheEnvironmentIsNamedWithItsVariableAndTheProgramKeepsItsExitCode() throws Exception {
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "", List.of(),
        Map.of("KERNELWEAVE_MODE", "fast"), PlainPrograms.NoCuda.class.getName(), "5");
    assertEquals(5, r.exitCode());
    assertTrue(r.stdout().contains("hello from a program without CUDA"));
    assertTrue(r.stderr().startsWith("[kernelweave] KERNELWEAVE_MODE: option mode=fast is not valid"), r.stderr());
    assertEquals(1, r.stderr().lines().count(), "one line: " + r.stderr());
  }

  @Test
  void unknownOptionIsNamedWithTheAcceptedKeys() throws Exception {
    ChildJvm.Result r = ChildJvm.run("mode=schedule,colour=blue", PlainPrograms.NoCuda.class, "0");
    assertEquals(0, r.exitCode());
    assertTrue(r.stderr().contains("'colour'"), r.stderr());
    assertTrue(r.stderr().contains("mode, journal, streams, ptx, graphs, judge, merge, log"), r.stderr());
  }

  @Test
  void logSystemSendsTheAgentsLinesThroughTheSystemLogger() throws Exception {
    Path journal = Files.createTempDirectory("kw-journal");
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "log=system,journal=" + journal,
        List.of(), standInDriver(), PlainPrograms.TouchesJCuda.class.getName());
    assertEquals(0, r.exitCode(), r.stderr());
    // java.util.logging's console handler: a line naming the logger's caller, then LEVEL: message.
    assertTrue(r.stderr().contains("INFO: journal: " + journal.toAbsolutePath()), r.stderr());
    assertFalse(r.stderr().contains("[kernelweave]"), "nothing on stderr of the agent's own: " + r.stderr());
  }

  @Test
  void programThatNeverTouchesCudaIsNotDisturbed() throws Exception {
    Path journal = Files.createTempDirectory("kw-journal").resolve("never");
    ChildJvm.Result r = ChildJvm.run("journal=" + journal, PlainPrograms.NoCuda.class, "3");
    assertEquals(3, r.exitCode());
    assertEquals("", r.stderr());
    assertFalse(Files.exists(journal), "no journal directory for a program without CUDA");
  }

  @Test
  void programCallingJCudaBehavesAsWithoutTheAgent() throws Exception {
    ChildJvm.Result without = ChildJvm.run(null, PlainPrograms.TouchesJCuda.class);
    ChildJvm.Result with = ChildJvm.run("log=debug,journal=off", PlainPrograms.TouchesJCuda.class);
    assertEquals(without.exitCode(), with.exitCode());
    assertEquals(without.stdout(), with.stdout());
    assertTrue(with.stderr().contains("instrumented jcuda.driver.JCudaDriver"), with.stderr());
  }

  /**
   * On Java 25 a program run with the agent and a journal prints nothing about {@code sun.misc.Unsafe},
   * whether it only loads JCuda or calls it (README, "Java 24 and later"): the jar's Chronicle writes
   * through {@code jdk.internal.misc.Unsafe}, and the journal has the call.
   */
  @Test
  void onJava25AJournalPrintsNoUnsafeWarning() throws Exception {
    assumeTrue(Files.isExecutable(JDK_25.resolve("bin/java")), "no JDK 25 at " + JDK_25 + ": skipped");
    String java25 = ChildJvm.java(JDK_25.toString());
    String classPath = ChildJvm.programClassPath(List.of());
    Path journals = Files.createTempDirectory("kw-unsafe");
    String unsafe = "sun.misc.Unsafe";

    ChildJvm.Result loadsOnly = ChildJvm.runOnClassPath(java25, "journal=" + journals.resolve("a"), classPath,
        standInDriver(), PlainPrograms.LoadsJCudaOnly.class.getName(), "1500");
    assertEquals(0, loadsOnly.exitCode(), loadsOnly.stderr());
    assertFalse(loadsOnly.stderr().contains(unsafe), "Chronicle started, no warning: " + loadsOnly.stderr());

    ChildJvm.Result calls = ChildJvm.runOnClassPath(java25, "journal=" + journals.resolve("b"), classPath,
        standInDriver(), PlainPrograms.TouchesJCuda.class.getName());
    assertEquals(0, calls.exitCode(), calls.stderr());
    assertFalse(calls.stderr().contains(unsafe), calls.stderr());
    assertFalse(calls.stderr().contains("[kernelweave] warning"), calls.stderr());
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journals.resolve("b").toString());
    assertEquals(0, tail.exitCode(), tail.stderr());
    assertTrue(tail.stdout().contains(" cuInit "), "the journal has the program's call:\n" + tail.stdout());
  }

  @Test
  void agentRunsOnANewerJdk() throws Exception {
    assumeTrue(Files.isExecutable(JDK_25.resolve("bin/java")), "no JDK 25 at " + JDK_25 + ": skipped");
    String java25 = ChildJvm.java(JDK_25.toString());
    ChildJvm.Result without = ChildJvm.run(java25, null, PlainPrograms.TouchesJCuda.class);
    ChildJvm.Result with = ChildJvm.run(java25, "log=debug", PlainPrograms.TouchesJCuda.class);
    assertEquals(without.exitCode(), with.exitCode());
    assertEquals(without.stdout(), with.stdout());
    assertTrue(with.stderr().contains("instrumented jcuda.driver.JCudaDriver"), with.stderr());
    try (Stream<String> lines = with.stderr().lines()) {
      assertFalse(lines.anyMatch(l -> l.contains("could not")), with.stderr());
    }
  }

  /**
   * A program that only calls cuInit (over the stand-in driver where it is built, else failing for
   * want of a driver), without and with the agent and a journal, as the benchmark measures it: the
   * median of the differences of 7 pairs of fresh JVMs whose order alternates. Wall-clock time on a
   * shared 2-core machine cannot hold a tight bound: idle, the agent adds about 360 ms to a 75 ms
   * JVM; loaded, 550 ms to a 160 ms one, and a JVM alone has taken 1 s. The agent's start is mostly
   * class loading, which a loaded machine slows more than the JVM's own (mapped from the CDS
   * archive), so the bound scales with six times the JVM's own time, never under 1.5 s: it catches
   * an agent that waits for something at start or exit (the journal's 10 s close timeout, a writer
   * that never starts), and {@link #classesTheAgentLoadsIntoACuInitProgramStayWithinBudget}, which
   * no load can blur, catches the rest.
   */
  @Test
  void startUpCostIsWithinBudget() throws Exception {
    String java = ChildJvm.java(System.getProperty("java.home"));
    Path journals = Files.createTempDirectory("kw-startup");
    int pairs = 7;
    long[] without = new long[pairs];
    long[] extra = new long[pairs];
    for (int i = 0; i < pairs; i++) {
      String withAgent = "log=quiet,journal=" + journals.resolve("run-" + i);
      long a;
      long b;
      if (i % 2 == 0) {
        a = timed(java, null);
        b = timed(java, withAgent);
      } else {
        b = timed(java, withAgent);
        a = timed(java, null);
      }
      without[i] = a;
      extra[i] = b - a;
    }
    long withoutMedian = median(without);
    long extraMedian = median(extra);
    System.out.printf("[start-up] cuInit program: %d ms without the agent, %d ms more with it and a journal"
        + " (medians of %d alternating pairs; extra per pair %s)%n", withoutMedian, extraMedian, pairs,
        Arrays.toString(extra));
    long bound = Math.max(1500, 6 * withoutMedian);
    assertTrue(extraMedian < bound,
        "the agent added " + extraMedian + " ms to the start of a JVM (bound " + bound + " ms)");
  }

  private static long timed(String java, String agentOptions) throws Exception {
    long start = System.nanoTime();
    ChildJvm.Result r = ChildJvm.run(java, agentOptions, List.of(), standInDriver(), PlainPrograms.TouchesJCuda.class.getName());
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().contains("cuInit"), r.stdout());
    assertEquals("", r.stderr());
    return ms;
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** The stand-in CUDA driver's directory as the library path where it is built, else nothing. */
  private static Map<String, String> standInDriver() {
    Path cpuDevice = Path.of("../kernels/target/cpu-device");
    return Files.isRegularFile(cpuDevice.resolve("libcuda.so.1"))
        ? Map.of("LD_LIBRARY_PATH", cpuDevice.toAbsolutePath().toString()) : Map.of();
  }

  /**
   * A program that ends soon after its first CUDA call does not wait for Chronicle at its exit: its
   * calls are in the journal's spill file, written as it exits, and Chronicle, which starts 300 ms
   * after JCuda loads, has not started. Medians of 5 runs; the wait is what {@code log=debug}
   * reports at exit. Before the spill file, the exit waited for Chronicle's whole start (about 400
   * ms on two cores). The journal is read whole each time.
   */
  @Test
  void aShortProgramsExitDoesNotWaitForChronicle() throws Exception {
    Map<String, String> driver = standInDriver();
    assumeTrue(!driver.isEmpty(), "no stand-in CUDA driver (it is built where g++ is present): skipped");
    String java = ChildJvm.java(System.getProperty("java.home"));
    Path journals = Files.createTempDirectory("kw-startup");
    int runs = 5;
    long[] waits = new long[runs];
    for (int i = 0; i < runs; i++) {
      Path journal = journals.resolve("instant-" + i);
      waits[i] = exitWait(java, journal, driver, 0);
      ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
      assertEquals(0, tail.exitCode(), tail.stderr());
      assertTrue(tail.stdout().contains("cuInit"), tail.stdout());
    }
    System.out.printf("[start-up] the exit waited for the journal %d ms after an instant cuInit (median of %d)%n",
        median(waits), runs);
    assertTrue(median(waits) < 50, "the exit waited " + median(waits) + " ms for the journal (budget 50)");
  }

  private static long exitWait(String java, Path journal, Map<String, String> driver, int cuInitMillis)
      throws Exception {
    Map<String, String> env = new HashMap<>(driver);
    env.put("KW_CPU_DEVICE_INIT_MS", Integer.toString(cuInitMillis));
    ChildJvm.Result r = ChildJvm.run(java, "log=debug,journal=" + journal, List.of(), env,
        PlainPrograms.TouchesJCuda.class.getName());
    assertEquals(0, r.exitCode(), r.stderr());
    Matcher m = Pattern.compile("journal closed in (\\d+) ms at exit").matcher(r.stderr());
    assertTrue(m.find(), r.stderr());
    return Long.parseLong(m.group(1));
  }

  /**
   * The classes the agent adds to a program that only calls cuInit, counted: a count a loaded
   * machine cannot blur, and most start-up regressions load classes (Byte Buddy at run time,
   * Chronicle on the program's thread, the platform MBean server). Measured on JDK 17: about 260
   * without a journal, about 470 with one (the journal's spill file; Chronicle, about 1,100 more,
   * starts 300 ms after JCuda loads, which a slow machine may reach, hence the budget); 1,570 when
   * Chronicle started as JCuda loaded, and 1,870 before that. The MBean's thread
   * waits a second after the first call, so a JVM that a loaded machine keeps alive that long may
   * build the platform MBean server: its classes are not counted, but they must not come sooner.
   */
  @Test
  void classesTheAgentLoadsIntoACuInitProgramStayWithinBudget() throws Exception {
    String java = ChildJvm.java(System.getProperty("java.home"));
    Path journal = Files.createTempDirectory("kw-startup").resolve("classes");
    ClassLoads none = classLoads(java, null);
    ClassLoads noJournal = classLoads(java, "journal=off");
    ClassLoads withJournal = classLoads(java, "log=quiet,journal=" + journal);
    System.out.printf("[start-up] classes loaded by a cuInit program: %d without the agent, %d with it,"
        + " %d with it and a journal (%d of Chronicle's on the program's thread)%n",
        none.total, noJournal.total, withJournal.total, withJournal.chronicleOnMain);
    assertTrue(noJournal.total - none.total < 300, "without a journal the agent loads "
        + (noJournal.total - none.total) + " classes (budget 300)");
    assertTrue(withJournal.total - none.total < 1800, "with a journal the agent loads "
        + (withJournal.total - none.total) + " classes (budget 1800)");
    assertTrue(withJournal.chronicleOnMain < 100, withJournal.chronicleOnMain
        + " of Chronicle's classes loaded on the program's thread (budget 100): Chronicle starts on the agent's");
    for (ClassLoads loads : List.of(noJournal, withJournal)) {
      assertEquals(0, loads.byteBuddy, "Byte Buddy is not loaded where the build wove JCuda");
      assertEquals(0, loads.picocli, "the command line's parser is not loaded into a program");
      assertTrue(loads.mbeanServerAtSeconds >= 1, "the platform MBean server was built "
          + loads.mbeanServerAtSeconds + " s after the JVM started, before the first call was a second old");
    }
  }

  /**
   * Classes a cuInit-only program loaded, from {@code -Xlog:class+load} with uptime and thread ids,
   * less those of the thread that built the platform MBean server, if one did.
   *
   * @param mbeanServerAtSeconds when the platform MBean server's class loaded; infinite where none
   */
  private record ClassLoads(int total, int chronicleOnMain, int byteBuddy, int picocli, double mbeanServerAtSeconds) {}

  private static ClassLoads classLoads(String java, String agentOptions) throws Exception {
    Path log = Files.createTempFile("kw-classes", ".log");
    try {
      ChildJvm.Result r = ChildJvm.runOnClassPath(java, List.of("-Xlog:class+load:file=" + log + ":uptime,tid"),
          agentOptions, ChildJvm.programClassPath(List.of()), standInDriver(),
          PlainPrograms.TouchesJCuda.class.getName());
      assertEquals(0, r.exitCode(), r.stderr());
      assertEquals("", r.stderr());
      // Lines read "[0.185s][26186] java.lang.Object source: ...": uptime, thread, class.
      List<String[]> loads = Files.readAllLines(log).stream()
          .map(l -> new String[] {l.substring(1, l.indexOf("s]")), l.substring(l.indexOf("]") + 1, l.indexOf("] ") + 1),
              l.substring(l.indexOf("] ") + 2)})
          .toList();
      String main = threadThatLoaded(loads, PlainPrograms.TouchesJCuda.class.getName());
      String mbeans = threadThatLoaded(loads, "com.sun.jmx.mbeanserver.JmxMBeanServer");
      double mbeanServerAt = loads.stream().filter(l -> l[2].startsWith("com.sun.jmx.mbeanserver.JmxMBeanServer "))
          .mapToDouble(l -> Double.parseDouble(l[0])).findFirst().orElse(Double.POSITIVE_INFINITY);
      return new ClassLoads(
          (int) loads.stream().filter(l -> !l[1].equals(mbeans)).count(),
          (int) loads.stream().filter(l -> l[1].equals(main) && l[2].contains(".shaded.chronicle.")).count(),
          (int) loads.stream().filter(l -> l[2].contains(".shaded.bytebuddy.")).count(),
          (int) loads.stream().filter(l -> l[2].startsWith(SHADED_PICOCLI)).count(),
          mbeanServerAt);
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** The thread that loaded the named class, or null. */
  private static String threadThatLoaded(List<String[]> loads, String className) {
    return loads.stream().filter(l -> l[2].startsWith(className + " ")).map(l -> l[1]).findFirst().orElse(null);
  }

  @Test
  void programWithItsOwnCaffeineKeepsItWhileTheAgentUsesItsRelocatedOne() throws Exception {
    Path other;
    try (Stream<Path> jars = Files.list(Path.of("target/other-caffeine"))) {
      other = jars.filter(p -> p.getFileName().toString().startsWith("caffeine-2.")).findFirst().orElseThrow();
    }
    Path journal = Files.createTempDirectory("kw-journal").resolve("caffeine");
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "journal=" + journal,
        java.util.List.of(other), PlainPrograms.OwnCaffeine.class);
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().contains("caffeine v from"), r.stdout());
    assertTrue(r.stdout().contains(other.getFileName().toString()), "the program's own Caffeine: " + r.stdout());
    assertTrue(r.stdout().contains("cuInit threw"), r.stdout());
    assertFalse(r.stderr().contains("could not"), r.stderr());
  }
}
