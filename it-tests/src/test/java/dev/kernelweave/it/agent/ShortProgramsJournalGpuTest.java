package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Short JCuda programs, as samples are written (a context, a few buffers and kernels, a read-back,
 * then the end of {@code main} or {@code System.exit}), with the packaged agent on a GPU: each
 * leaves a complete journal and a stderr with nothing of the agent's but its one journal line.
 * Complete means every call the program made: the same calls, numbered without a gap, as a run of
 * the same program whose JVM lingers after {@code main} ({@link LingeringMain}). Skips itself where
 * there is no GPU.
 */
class ShortProgramsJournalGpuTest {

  private static final String SEMANTICS = "dev.kernelweave.it.semantics.";
  private static final String[] FAST_SEQUENCE = {"--reps", "1", "--cycles", "2000000"};

  @TempDir Path temp;

  /** Whether there is a GPU, asked once of a program that exits with {@code NO_GPU} where there is none. */
  private static Boolean gpu;

  private static boolean gpuPresent(String java) throws Exception {
    if (gpu == null) {
      ChildJvm.Result probe = ChildJvm.run(java, null, List.of(), Map.of(), ChainsProgram.class.getName(),
          "1", "1", "256", "1", "1");
      gpu = probe.exitCode() != SmokePrograms.NO_GPU;
    }
    return gpu;
  }

  static Stream<Arguments> programs() {
    List<Arguments> programs = new ArrayList<>(List.of(
        Arguments.of(ChainsProgram.class.getName(), new String[] {"2", "3", "1024", "1", "1"}),
        Arguments.of(BlasProgram.class.getName(), new String[] {"4", "32"}),
        Arguments.of(BlasShadowProgram.class.getName(), new String[] {"8", "16"}),
        Arguments.of(RuntimeProgram.class.getName(), new String[0]),
        Arguments.of(ThreadsProgram.class.getName(), new String[] {"3", "16"}),
        Arguments.of(ErrorsProgram.class.getName(), new String[0]),
        Arguments.of(JournalProgram.class.getName(), new String[] {"exit-at-once", "3"})));
    for (String[] sequence : List.of(
        new String[] {"LegacySyncCopyProgram", "legacy"},
        new String[] {"LegacySyncCopyProgram", "blocking"},
        new String[] {"ConstantMemoryProgram", "constant"},
        new String[] {"StreamHandlesProgram", "handles"},
        new String[] {"RegisteredMemoryProgram", "registered"},
        new String[] {"HostFunctionProgram", "hostfunc"},
        new String[] {"GraphCaptureProgram", "capture"})) {
      List<String> args = new ArrayList<>(List.of("--variant", sequence[1]));
      args.addAll(List.of(FAST_SEQUENCE));
      programs.add(Arguments.of(SEMANTICS + sequence[0], args.toArray(String[]::new)));
    }
    return programs.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("programs")
  void leavesACompleteJournalAndAStderrWithoutTheAgentsTraces(String main, String[] args) throws Exception {
    String java = ChildJvm.java(System.getProperty("java.home"));
    assumeTrue(gpuPresent(java), "no GPU on this machine: skipped");
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), Map.of(), main, args);
    assumeTrue(plain.exitCode() != SmokePrograms.NO_GPU, "no GPU on this machine: " + plain.stdout().strip());
    assumeTrue(plain.exitCode() != 4, "no binary for this GPU: " + plain.stdout().strip());
    assertEquals(0, plain.exitCode(), "without the agent; stderr:\n" + plain.stderr());

    Path quickJournal = temp.resolve("quick");
    ChildJvm.Result quick = ChildJvm.run(java, "journal=" + quickJournal, List.of(), Map.of(), main, args);
    assertEquals(plain.exitCode(), quick.exitCode(), "exit code; stderr:\n" + quick.stderr());
    assertEquals(plain.observable(), quick.observable(), "what the program prints");
    assertEquals(plain.stderr().lines().toList(), stderrWithoutTheJournalLine(quick),
        "stderr is the program's own plus one journal line:\n" + quick.stderr());
    assertFalse(quick.stdout().contains("kernelweave"), "nothing of the agent's on stdout:\n" + quick.stdout());

    Path lingeringJournal = temp.resolve("lingering");
    List<String> lingeringArgs = new ArrayList<>(List.of(main));
    lingeringArgs.addAll(List.of(args));
    ChildJvm.Result lingering = ChildJvm.run(java, "journal=" + lingeringJournal, List.of(), Map.of(),
        LingeringMain.class.getName(), lingeringArgs.toArray(String[]::new));
    assertEquals(plain.exitCode(), lingering.exitCode(), "exit code when lingering; stderr:\n" + lingering.stderr());

    List<String> quickCalls = countedCalls(quickJournal);
    List<String> lingeringCalls = countedCalls(lingeringJournal);
    assertFalse(quickCalls.isEmpty(), "the program's calls are journaled");
    assertEquals(lingeringCalls.size(), quickCalls.size(),
        "a run that exits at once journals as many calls as one that lingers:\nquick:\n"
            + String.join("\n", quickCalls) + "\nlingering:\n" + String.join("\n", lingeringCalls));
    assertEquals(names(lingeringCalls), names(quickCalls), "the same calls");
  }

  private static List<String> stderrWithoutTheJournalLine(ChildJvm.Result r) {
    List<String> lines = new ArrayList<>(r.stderr().lines().toList());
    assertTrue(!lines.isEmpty() && lines.get(0).startsWith("[kernelweave] journal: "),
        "the journal's line comes first:\n" + r.stderr());
    lines.remove(0);
    return lines;
  }

  /**
   * The calls {@code inspect tail} reads, whose sequence numbers are 1 to N without a gap (threads
   * write them in the order their calls ended, so they are compared sorted); polls
   * ({@code cuStreamQuery}, {@code cuEventQuery}) are left out of the count, since a program polls
   * as often as timing makes it.
   */
  private static List<String> countedCalls(Path journal) throws Exception {
    assertTrue(Files.isDirectory(journal), "the journal directory exists: " + journal);
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
    assertEquals(0, tail.exitCode(), "inspect: " + tail.stderr());
    List<String> lines = tail.stdout().lines().toList();
    List<Long> numbers = lines.stream().map(l -> Long.parseLong(l.substring(0, l.indexOf(' ')))).sorted().toList();
    for (int i = 0; i < numbers.size(); i++) {
      assertEquals(i + 1, numbers.get(i), "no call missing or repeated, in:\n" + tail.stdout());
    }
    return lines.stream().filter(l -> !l.contains("Query")).toList();
  }

  /** The call names of journal lines, sorted: threads interleave differently from run to run. */
  private static List<String> names(List<String> calls) {
    return calls.stream().map(l -> l.split(" ")[3]).sorted().toList();
  }
}
