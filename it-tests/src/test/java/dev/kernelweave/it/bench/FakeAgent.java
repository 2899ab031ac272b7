package dev.kernelweave.it.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A stand-in for the agent jar: as an agent it records its options and creates the journal
 * folder it is given, writing its options there; as a command line it answers {@code selftest},
 * {@code inspect stats}, {@code inspect dag} and {@code inspect trace} the way the real one is meant to. Its {@code
 * inspect stats} gives 30 launches of {@link #PASSTHROUGH_MICROS} us for a journal written in
 * {@code mode=passthrough}, of {@link #SCHEDULE_MICROS} us otherwise, when asked for the calls
 * since the fake workloads' timed repetitions began; {@link #WARM_UPS_INCLUDED_MICROS} for all.
 */
public final class FakeAgent {

  /** The system property where the agent leaves its options, so a fake workload can see it ran. */
  public static final String OPTIONS_PROPERTY = "fake.agent.options";

  /** The mean host time per launch that {@code inspect stats} gives a passthrough journal. */
  static final double PASSTHROUGH_MICROS = 7.25;

  /** The same for any other journal (two kernels: 20 launches of 8.5, 10 of 10). */
  static final double SCHEDULE_MICROS = 9.0;

  /** The mean host time per launch of a whole journal, warm-ups included. */
  static final double WARM_UPS_INCLUDED_MICROS = 99.0;

  private FakeAgent() {}

  public static void premain(String options) throws IOException {
    System.setProperty(OPTIONS_PROPERTY, options == null ? "" : options);
    for (String option : (options == null ? "" : options).split(",")) {
      if (option.startsWith("journal=")) {
        Path journal = Path.of(option.substring("journal=".length()));
        Files.createDirectories(journal);
        Files.writeString(journal.resolve("fake.cq4"), options + "\n");
      }
    }
  }

  public static void main(String[] args) throws IOException {
    String command = String.join(" ", args);
    if (command.startsWith("selftest --sim")) {
      System.out.println("selftest: 200 programs, all equal");
    } else if ((args.length == 3 || args.length == 5 && args[3].equals("--since"))
        && command.startsWith("inspect stats ") && Files.isDirectory(Path.of(args[2]))) {
      Path written = Path.of(args[2], "fake.cq4");
      boolean passthrough = Files.isRegularFile(written) && Files.readString(written).contains("mode=passthrough");
      System.out.println("calls 42, kernels 30, streams 4");
      System.out.println();
      System.out.println("kernels                      launches   mean host us");
      if (args.length == 5 && !args[4].equals(FakeWorkloadMain.TIMED_FROM)) {
        System.out.println("fake agent: no calls since " + args[4]);
        System.exit(2);
      } else if (args.length == 3) {
        System.out.println("  fake_step                        30          99.00");
      } else if (passthrough) {
        System.out.println("  fake_step                        30           7.25");
      } else {
        System.out.println("  fake_step                        20           8.50");
        System.out.println("  (unknown kernel)                 10          10.00");
      }
      System.out.println();
      System.out.println("threads                         calls        host ms");
    } else if (args.length == 3 && command.startsWith("inspect dag ") && Files.isDirectory(Path.of(args[2]))) {
      System.out.println("digraph kernelweave {");
      System.out.println("  n1 [label=\"1 cuMemcpyHtoD\\ns0\", fillcolor=white];");
      System.out.println("  n2 [label=\"2 scale\\ns0\", fillcolor=white];");
      System.out.println("  n3 [label=\"3 scale\\ns1\", fillcolor=white];");
      System.out.println("  n4 [label=\"4 sum\\ns0\", fillcolor=white];");
      System.out.println("  n1 -> n2 [label=\"RAW #1\"];");
      System.out.println("  n1 -> n3 [label=\"RAW #1\"];");
      System.out.println("  n2 -> n4 [label=\"RAW #2\"];");
      System.out.println("  n3 -> n4 [label=\"RAW #3\"];");
      System.out.println("}");
    } else if (args.length == 5 && command.startsWith("inspect trace ") && args[3].equals("-o")) {
      Files.writeString(Path.of(args[4]), "{\"traceEvents\":[]}");
    } else {
      System.out.println("fake agent: cannot do '" + command + "'");
      System.exit(2);
    }
  }
}
