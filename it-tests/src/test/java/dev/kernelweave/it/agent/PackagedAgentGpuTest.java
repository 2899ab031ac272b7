package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The packaged agent on plain JCuda and JCublas2 programs in separate JVMs, on a GPU: what the
 * program prints is the same without the agent, with it passing through, and with it scheduling;
 * errors reach the program unchanged; the journal holds the calls made. Skips itself where there
 * is no GPU.
 */
class PackagedAgentGpuTest {

  static ChildJvm.Result runOnGpu(String agentOptions, Class<?> program, String... args) throws Exception {
    ChildJvm.Result r = ChildJvm.run(agentOptions, program, args);
    assumeTrue(r.exitCode() != SmokePrograms.NO_GPU, "no GPU on this machine: " + r.stdout().strip());
    assertEquals(0, r.exitCode(), () -> "exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    assertFalse(r.stderr().contains("warning"), r.stderr());
    return r;
  }

  static Path journalDir(String name) throws Exception {
    return Files.createTempDirectory("kw-it").resolve(name);
  }

  /** Runs a program without the agent, passing through and scheduling; all three print the same. */
  static void sameInEveryMode(Class<?> program, String... args) throws Exception {
    ChildJvm.Result plain = runOnGpu(null, program, args);
    assertFalse(plain.observable().isEmpty(), plain.stdout());
    ChildJvm.Result passthrough = runOnGpu("mode=passthrough,journal=" + journalDir("pass"), program, args);
    ChildJvm.Result schedule = runOnGpu("mode=schedule,journal=" + journalDir("sched"), program, args);
    assertEquals(plain.observable(), passthrough.observable(), passthrough.stderr());
    assertEquals(plain.observable(), schedule.observable(), schedule.stderr());
  }

  @Test
  void chainsProgramPrintsTheSameWithTheAgentInEveryMode() throws Exception {
    sameInEveryMode(ChainsProgram.class, "8", "12", "4096", "100", "2");
  }

  @Test
  void blasProgramPrintsTheSameWithTheAgentInEveryMode() throws Exception {
    sameInEveryMode(BlasProgram.class, "8", "64");
  }

  @Test
  void cublasLoopPrintsTheSameAndItsRoutinesRunInsideReplayedGraphs() throws Exception {
    sameInEveryMode(BlasReplayProgram.class, "8");
    Path journal = journalDir("blas-graphs");
    runOnGpu("mode=schedule,journal=" + journal, BlasReplayProgram.class, "8");
    ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
    Matcher m = Pattern.compile("cuBLAS calls in replays\\s+(\\d+)").matcher(stats.stdout());
    assertTrue(m.find() && Integer.parseInt(m.group(1)) > 0, "cuBLAS calls were replayed:\n" + stats.stdout());
  }

  @Test
  void runtimeApiProgramPrintsTheSameWithTheAgentInEveryMode() throws Exception {
    sameInEveryMode(RuntimeProgram.class);
  }

  @Test
  void threadsLaunchingAtOnceGetTheirOwnResults() throws Exception {
    sameInEveryMode(ThreadsProgram.class, "4", "64");
  }

  @Test
  void cudaErrorsReachTheProgramAtTheSameCallWithTheSameCodeOrException() throws Exception {
    sameInEveryMode(ErrorsProgram.class);
  }

  private static final Pattern LAUNCH =
      Pattern.compile("^(\\d+) \\S+ main cuLaunchKernel (\\w+) grid\\((\\d+),1,1\\) block\\((\\d+),1,1\\)(.*)$");

  @Test
  void journalHoldsEveryLaunchInOrderWithNamesDimensionsAndAccesses() throws Exception {
    Path journal = journalDir("journal");
    runOnGpu("mode=schedule,journal=" + journal, ChainsProgram.class, "2", "2", "1024", "1", "1");
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
    assertEquals(0, tail.exitCode(), tail.stderr());
    List<String> kernels = new java.util.ArrayList<>();
    long previous = 0;
    for (String line : tail.stdout().split("\n")) {
      long seq = Long.parseLong(line.substring(0, line.indexOf(' ')));
      assertTrue(seq > previous, "in order: " + line);
      previous = seq;
      Matcher m = LAUNCH.matcher(line);
      if (!m.matches()) {
        continue;
      }
      kernels.add(m.group(2));
      assertEquals("4", m.group(3), line);
      assertEquals("256", m.group(4), line);
      String accesses = m.group(5);
      switch (m.group(2)) {
        // Accesses (allocation, offset, size, mode), then the scheduler's decision, then the result.
        case "axpb" -> assertTrue(accesses.matches(" s\\d+ #\\d+\\+0x0\\[4096\\] RW #\\d+\\+0x0\\[4096\\] R( .*)? =0"), line);
        case "spin_scale" -> assertTrue(accesses.matches(" s\\d+ #\\d+\\+0x0\\[4096\\] RW( .*)? =0"), line);
        case "sum_into" -> assertTrue(accesses.matches(" s\\d+( #\\d+\\+0x0\\[4096\\] (W|R)){3}( .*)? =0"), line);
        default -> throw new AssertionError("unexpected kernel: " + line);
      }
    }
    assertEquals(List.of("axpb", "spin_scale", "axpb", "spin_scale", "axpb", "spin_scale", "axpb", "spin_scale",
        "sum_into"), kernels, tail.stdout());
    assertTrue(tail.stdout().contains("cuMemcpyHtoD"), tail.stdout());
    assertTrue(tail.stdout().contains("cuMemsetD32"), tail.stdout());
    ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
    assertEquals(0, stats.exitCode(), stats.stderr());
    assertTrue(stats.stdout().matches("(?s).*launch\\s+9\\n.*"), stats.stdout());
    ChildJvm.Result dag = ChildJvm.command("inspect", "dag", journal.toString(), "--dot");
    assertEquals(0, dag.exitCode(), dag.stderr());
    assertTrue(dag.stdout().startsWith("digraph"), dag.stdout());
    Path trace = journal.resolveSibling("trace.json");
    ChildJvm.Result traced = ChildJvm.command("inspect", "trace", journal.toString(), "-o", trace.toString());
    assertEquals(0, traced.exitCode(), traced.stderr());
    assertTrue(Files.readString(trace).contains("\"traceEvents\""));
  }
}
