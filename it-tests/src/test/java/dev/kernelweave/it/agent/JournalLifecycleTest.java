package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's life in the packaged agent, on real JCuda programs over the stand-in CUDA driver
 * ({@code kernels/target/cpu-device}): short programs that exit at once, {@code System.exit} from
 * another thread and {@code kill -9} leave every call the writer could write, stderr carries no
 * trace, and the application sees no system property of the agent's.
 */
class JournalLifecycleTest {

  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");

  @TempDir Path temp;

  @BeforeEach
  void needsTheStandInDriver() {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
  }

  private static Map<String, String> environment() {
    return Map.of("LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", "1");
  }

  private static ChildJvm.Result program(String agentOptions, String... args) throws Exception {
    return ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), agentOptions, List.of(), environment(),
        JournalProgram.class.getName(), args);
  }

  /** The calls {@code inspect tail} reads: their sequence numbers must run 1, 2, 3... with no gap. */
  private static List<String> journaledCalls(Path journal) throws Exception {
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
    assertEquals(0, tail.exitCode(), "inspect: " + tail.stderr());
    assertEquals("", tail.stderr());
    List<String> lines = tail.stdout().lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      assertTrue(lines.get(i).startsWith((i + 1) + " "), "no call missing or repeated at " + (i + 1) + ": "
          + lines.get(i));
    }
    return lines;
  }

  private static void assertOnlyTheJournalLine(ChildJvm.Result r) {
    List<String> lines = r.stderr().lines().toList();
    assertEquals(1, lines.size(), "stderr: " + r.stderr());
    assertTrue(lines.get(0).startsWith("[kernelweave] journal: "), r.stderr());
    assertFalse(r.stdout().contains("kernelweave"), "nothing on stdout: " + r.stdout());
  }

  @Test
  void shortProgramsThatExitAtOnceLeaveCompleteJournalsAndACleanStderr() throws Exception {
    List<Integer> counts = new ArrayList<>();
    for (int run = 0; run < 4; run++) {
      Path journal = temp.resolve("short-" + run);
      ChildJvm.Result r = program("journal=" + journal, "exit-at-once", "3");
      assertEquals(0, r.exitCode(), r.stderr());
      assertOnlyTheJournalLine(r);
      List<String> calls = journaledCalls(journal);
      assertTrue(calls.get(calls.size() - 1).contains("cuMemFree"), "the last call is journaled: " + calls);
      assertEquals(3, calls.stream().filter(c -> c.contains("cuLaunchKernel")).count(), calls.toString());
      counts.add(calls.size());
    }
    assertEquals(1, counts.stream().distinct().count(), "every run journals the same calls: " + counts);
  }

  @Test
  void quietSaysNothingAtAllAndStillJournals() throws Exception {
    Path journal = temp.resolve("quiet");
    ChildJvm.Result r = program("log=quiet,journal=" + journal, "exit-at-once", "3");
    assertEquals(0, r.exitCode());
    assertEquals("", r.stderr());
    assertFalse(journaledCalls(journal).isEmpty());
    Path shared = Files.createDirectory(temp.resolve("shared"));
    Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    ChildJvm.Result refused = program("log=quiet,journal=" + shared, "exit-at-once", "3");
    assertEquals(0, refused.exitCode());
    assertEquals("", refused.stderr(), "not even the journal's warning");
  }

  @Test
  void aRefusedJournalDirectoryIsOneWarningAndTheProgramRuns() throws Exception {
    Path shared = Files.createDirectory(temp.resolve("shared"));
    Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    ChildJvm.Result r = program("journal=" + shared, "exit-at-once", "3");
    assertEquals(0, r.exitCode());
    assertTrue(r.stdout().contains("checksum "), r.stdout());
    assertEquals(1, r.stderr().lines().count(), r.stderr());
    assertTrue(r.stderr().startsWith("[kernelweave] warning: journal off, cannot use " + shared.toRealPath()),
        r.stderr());
    assertTrue(r.stderr().contains("writable by others"), r.stderr());
    try (var files = Files.list(shared)) {
      assertEquals(0, files.count());
    }
  }

  @Test
  void systemExitFromAnotherThreadLeavesEveryCallMadeBeforeIt() throws Exception {
    Path journal = temp.resolve("exit");
    ChildJvm.Result r = program("journal=" + journal, "exit-from-thread", "50");
    assertEquals(0, r.exitCode(), r.stderr());
    assertOnlyTheJournalLine(r);
    List<String> calls = journaledCalls(journal);
    assertTrue(calls.stream().filter(c -> c.contains("cuLaunchKernel")).count() >= 50, calls.size() + " calls");
  }

  @Test
  void callsMadeInTheApplicationsShutdownHookAreJournaled() throws Exception {
    for (int run = 0; run < 3; run++) {
      Path journal = temp.resolve("hook-" + run);
      ChildJvm.Result r = program("journal=" + journal, "in-shutdown-hook", "5");
      assertEquals(0, r.exitCode(), r.stderr());
      assertTrue(r.stdout().contains("checksum "), "the hook ran: " + r.stdout());
      assertOnlyTheJournalLine(r);
      List<String> calls = journaledCalls(journal);
      assertEquals(10, calls.stream().filter(c -> c.contains("cuLaunchKernel")).count(), calls.toString());
      assertTrue(calls.get(calls.size() - 1).contains("cuMemFree"), "the hook's last call is journaled: " + calls);
    }
  }

  @Test
  void haltFiftyMillisecondsAfterTheLastCallKeepsEveryCall() throws Exception {
    Path journal = temp.resolve("halt");
    ChildJvm.Result r = program("journal=" + journal, "halt", "5");
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().contains("freed"), r.stdout());
    List<String> calls = journaledCalls(journal);
    assertEquals(10, calls.stream().filter(c -> c.contains("cuLaunchKernel")).count(), calls.toString());
    assertEquals(2, calls.stream().filter(c -> c.contains("cuMemFree")).count(), "the last calls: " + calls);
  }

  @Test
  void theTimeZonePropertyIsTheJvmsOnceTheApplicationReadsTheTimeZone() throws Exception {
    ChildJvm.Result without = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), null, List.of(),
        environment(), JournalProgram.class.getName(), "timezone", "1");
    ChildJvm.Result with = program("journal=" + temp.resolve("tz"), "timezone", "1");
    assertEquals(0, with.exitCode(), with.stderr());
    String property = without.stdout().lines().filter(l -> l.startsWith("user.timezone=")).findFirst().orElseThrow();
    assertFalse(property.endsWith("=null"), without.stdout());
    assertTrue(with.stdout().contains(property), "as without the agent (" + property + "): " + with.stdout());
  }

  @Test
  void defaultRunsLeaveAtMostTheConfiguredNumberOfRunDirectories() throws Exception {
    Path state = temp.resolve("state");
    Map<String, String> env = new java.util.HashMap<>(environment());
    env.put("XDG_STATE_HOME", state.toString());
    for (int run = 0; run < 4; run++) {
      ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "journal-keep=2", List.of(),
          env, JournalProgram.class.getName(), "exit-at-once", "1");
      assertEquals(0, r.exitCode(), r.stderr());
      assertTrue(r.stderr().startsWith("[kernelweave] journal: " + state.resolve("kernelweave").toRealPath()
          + "/run-"), r.stderr());
      try (var runs = Files.list(state.resolve("kernelweave"))) {
        assertEquals(Math.min(run + 1, 2), runs.count(), "the runs kept after run " + run);
      }
    }
  }

  /**
   * Nor a thread of Chronicle's disk space monitor: the journal checks the free space itself, and
   * the properties that turn the monitor off are set only while Chronicle's classes initialize.
   */
  @Test
  void theApplicationSeesNoSystemPropertyOfTheAgents() throws Exception {
    Path journal = temp.resolve("props");
    ChildJvm.Result r = program("journal=" + journal, "properties", "3");
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().contains("properties unchanged"), r.stdout());
    assertTrue(r.stdout().contains("disk space checker threads: 0"), r.stdout());
    assertFalse(journaledCalls(journal).isEmpty(), "the journal was written meanwhile");
  }

  /**
   * Chronicle starts in the background when JCuda loads: a program that exits before any CUDA
   * call, at whatever point of that start, exits at once, cleanly, and leaves no journal directory.
   */
  @Test
  void programsThatLoadJCudaAndExitBeforeAnyCallLeaveNothing() throws Exception {
    for (String millis : List.of("0", "20", "80", "300")) {
      Path journal = temp.resolve("no-call-" + millis);
      ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "journal=" + journal,
          List.of(), environment(), PlainPrograms.LoadsJCudaOnly.class.getName(), millis);
      assertEquals(0, r.exitCode(), r.stderr());
      assertEquals("loaded\n", r.stdout());
      assertEquals("", r.stderr());
      assertFalse(Files.exists(journal), "no journal directory without a CUDA call");
    }
  }

  @Test
  void killDashNineDuringABusyRunLosesOnlyWhatWasNotWritten() throws Exception {
    Path journal = temp.resolve("killed");
    List<String> command = new ArrayList<>(List.of(ChildJvm.java(System.getProperty("java.home")),
        // Graphs off: a loop of identical launches held and replayed journals so fast that reading
        // the journal of a few seconds would outlast the test.
        "-javaagent:" + ChildJvm.agentJar() + "=" + ChildJvm.engagedFromTheFirstCall("journal=" + journal + ",graphs=off"), "-cp",
        ChildJvm.programClassPath(List.of()), JournalProgram.class.getName(), "busy", "3000"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(temp.resolve("killed.err").toFile());
    builder.environment().putAll(environment());
    Process child = builder.start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertEquals("launched 3000", line, () -> "stderr: " + read(temp.resolve("killed.err")));
      // The writer starts Chronicle in the background: wait until it has written those launches.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (launches(ChildJvm.command("inspect", "tail", journal.toString())) < 3000) {
        assertTrue(System.nanoTime() < deadline, "the writer wrote the launches within a minute");
        Thread.sleep(200);
      }
      assertTrue(child.isAlive(), "still launching when killed");
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    } finally {
      child.destroyForcibly();
    }
    assertEquals(137, child.exitValue(), "killed by SIGKILL");
    List<String> calls = journaledCalls(journal);
    assertTrue(calls.stream().filter(c -> c.contains("cuLaunchKernel")).count() >= 3000,
        "every launch written before the kill is read: " + calls.size());
    ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
    assertEquals(0, stats.exitCode(), stats.stderr());
    assertTrue(stats.stdout().contains("\nwritten by kernelweave " + System.getProperty("project.version") + " on Java "),
        "the agent's version, from the journal's first document: " + stats.stdout());
  }

  @Test
  void aFileSizeLimitStopsTheJournalWithOneWarningAndTheProgramGoesOn() throws Exception {
    // A full file system, as a size limit on the files the process writes: Chronicle's first 4 MiB
    // block cannot be written (the JVM ignores SIGXFSZ, so the write fails with EFBIG). The program
    // lives long enough for the journal to build its queue.
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash to set a file size limit: skipped");
    Path journal = temp.resolve("limited");
    List<String> err = runWithFileSizeLimit(journal, "exit-after-2s");
    assertEquals(2, err.size(), String.join("\n", err));
    assertTrue(err.get(0).startsWith("[kernelweave] journal: "), err.get(0));
    assertTrue(err.get(1).matches("\\[kernelweave\\] warning: journal (off|stopped), cannot write to .*"), err.get(1));
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
    assertTrue(tail.exitCode() == 0 || tail.exitCode() == 3, tail.stderr());
    assertTrue(tail.stderr().lines().count() <= 1, "at most the one line on what is damaged: " + tail.stderr());
  }

  @Test
  void aShortProgramsJournalNeedsNoRoomForChroniclesBlock() throws Exception {
    // The same limit: a program that ends before Chronicle has started leaves its calls in the spill
    // file, a few kilobytes, and never asks for Chronicle's block.
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash to set a file size limit: skipped");
    Path journal = temp.resolve("limited");
    List<String> err = runWithFileSizeLimit(journal, "exit-at-once");
    assertEquals(1, err.size(), String.join("\n", err));
    assertTrue(err.get(0).startsWith("[kernelweave] journal: "), err.get(0));
    List<String> calls = journaledCalls(journal);
    assertEquals(3, calls.stream().filter(c -> c.contains("cuLaunchKernel")).count(), calls.toString());
    assertTrue(calls.get(calls.size() - 1).contains("cuMemFree"), "the last call is journaled: " + calls);
  }

  /** Runs {@link JournalProgram} in {@code mode} under a 1 MiB file size limit; its stderr lines. */
  private List<String> runWithFileSizeLimit(Path journal, String mode) throws Exception {
    String command = "ulimit -f 1024 && exec \"$0\" \"$@\"";
    List<String> args = new ArrayList<>(List.of("/bin/bash", "-c", command, ChildJvm.java(System.getProperty("java.home")),
        "-javaagent:" + ChildJvm.agentJar() + "=" + ChildJvm.engagedFromTheFirstCall("journal=" + journal), "-cp",
        ChildJvm.programClassPath(List.of()),
        JournalProgram.class.getName(), mode, "3"));
    ProcessBuilder builder = new ProcessBuilder(args)
        .redirectOutput(temp.resolve("limited.out").toFile())
        .redirectError(temp.resolve("limited.err").toFile());
    builder.environment().putAll(environment());
    Process child = builder.start();
    try {
      assertTrue(child.waitFor(5, TimeUnit.MINUTES));
    } finally {
      child.destroyForcibly();
    }
    String err = read(temp.resolve("limited.err"));
    assertEquals(0, child.exitValue(), err);
    assertTrue(read(temp.resolve("limited.out")).contains("checksum "), "the program finished");
    return err.lines().toList();
  }

  private static long launches(ChildJvm.Result tail) {
    return tail.stdout().lines().filter(c -> c.contains("cuLaunchKernel")).count();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (Exception e) {
      return e.toString();
    }
  }
}
