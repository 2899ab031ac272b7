package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.scheduler.WindowJudging;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * The differential fuzz: random programs, each run serially (the reference) and through the
 * scheduler on a {@link ProgramTarget}; every byte the program can observe must be the same, and
 * the device must report no fault. A failing program is shrunk (delta debugging over its calls) to
 * a few calls that still fail.
 *
 * <p>Knows nothing of any particular target: the simulator and a real GPU run the same programs.
 */
public final class DifferentialFuzz {

  /** Timing seeds a shrinking step tries before it concludes that a smaller program passes. */
  private static final int SHRINK_SEEDS = 6;

  private final ProgramTarget.Factory targets;
  private final int streams;
  private final Mutant mutant;
  private final ProgramGenerator generator;
  private final boolean graphs;

  /**
   * @param targets opens a fresh target for each run
   * @param streams normal pool lanes per scheduler; the scheduled runs have priority lanes beside
   *     them ({@link Scheduler#poolLanes}), each thread's calls the class its program gives it
   * @param mutant {@link Mutant#NONE}, or a broken scheduler the fuzz should catch
   * @param graphs whether the scheduled runs hold launches and replay windows as graphs (where the
   *     target has graphs)
   */
  public DifferentialFuzz(ProgramTarget.Factory targets, int streams, Mutant mutant, ProgramGenerator generator,
      boolean graphs) {
    this.targets = targets;
    this.streams = streams;
    this.mutant = mutant;
    this.generator = generator;
    this.graphs = graphs;
  }

  /** With graphs on. */
  public DifferentialFuzz(ProgramTarget.Factory targets, int streams, Mutant mutant, ProgramGenerator generator) {
    this(targets, streams, mutant, generator, true);
  }

  public DifferentialFuzz(ProgramTarget.Factory targets, int streams, Mutant mutant) {
    this(targets, streams, mutant, new ProgramGenerator());
  }

  /** A program that failed, the target seed it failed with, and why. */
  public record Failure(Program program, long targetSeed, String reason, int originalSize) {
    /** The program, numbered call by call, and what went wrong. */
    public String describe() {
      StringBuilder s = new StringBuilder();
      s.append(String.format(Locale.ROOT, "program seed 0x%x, target seed 0x%x", program.seed(), targetSeed));
      if (originalSize != program.size()) {
        s.append(", shrunk from ").append(originalSize).append(" to ").append(program.size()).append(" calls");
      }
      s.append(":\n").append(program.describe());
      int handOver = handOverAt(program);
      if (handOver >= 0) {
        s.append("  handed back to itself before call #").append(handOver).append(", as the agent hands a program back\n");
      }
      s.append(reason.indent(2));
      return s.toString();
    }
  }

  /** What a fuzz run found, and how many of each {@link Shape} its programs were made with. */
  public record Report(int programs, int passed, List<Failure> failures, RunStats stats, Map<Shape, Integer> shapes) {
    public int failed() {
      return failures.size();
    }

    /** The summary line: {@code N passed, M failed}. */
    public String summary() {
      return passed + " passed, " + failures.size() + " failed";
    }
  }

  /** The seed of the {@code i}th program of a run seeded {@code seed}. */
  public static long programSeed(long seed, int i) {
    return mix(seed * 0x9E3779B97F4A7C15L + i);
  }

  /**
   * Generates and checks {@code programs} programs; prints a progress line about every tenth of the
   * way (nothing when {@code progress} is null).
   *
   * @param stopAfter stop once this many programs failed (0: never)
   */
  public Report run(long seed, int programs, int stopAfter, PrintStream progress) {
    List<Failure> failures = new ArrayList<>();
    RunStats stats = new RunStats();
    Map<Shape, Integer> shapes = new EnumMap<>(Shape.class);
    int passed = 0;
    int step = Math.max(1, programs / 10);
    int done = 0;
    for (int i = 0; i < programs; i++) {
      Program program = withHandBackEnd(generator.generate(programSeed(seed, i)));
      program.shapes().forEach((shape, count) -> shapes.merge(shape, count, Integer::sum));
      long targetSeed = mix(program.seed() ^ 0x5DEECE66DL);
      Verdict verdict = verdict(program, targetSeed);
      stats.add(verdict.stats);
      if (verdict.reason == null) {
        passed++;
      } else {
        failures.add(new Failure(program, targetSeed, verdict.reason, program.size()));
      }
      done = i + 1;
      if (progress != null && (done % step == 0 || done == programs)) {
        progress.printf(Locale.ROOT, "  %d/%d programs, %d failed%n", done, programs, failures.size());
      }
      if (stopAfter > 0 && failures.size() >= stopAfter) {
        break;
      }
    }
    return new Report(done, passed, failures, stats, shapes);
  }

  /**
   * The high lanes, and low lanes, of the scheduled runs: more than the agent's one, so that the
   * work of one class also runs concurrently and a missing wait inside a class can show.
   */
  public static int classLanes(int streams) {
    return Math.max(Scheduler.AGENT_CLASS_LANES, streams / 4);
  }

  /** Why {@code program} fails with {@code targetSeed}, or null when it passes. */
  public String check(Program program, long targetSeed) {
    return verdict(program, targetSeed).reason;
  }

  private record Verdict(String reason, RunStats stats) {}

  /**
   * How the program's known windows are issued, by its seed: mostly judged on the simulated
   * device's random times, a quarter always in order, a quarter always as graphs.
   */
  static WindowJudging judgingOf(Program program) {
    long h = program.seed() * 0xC2B2AE3D27D4EB4FL;
    int pick = (int) Math.floorMod(h ^ (h >>> 29), 4L);
    return pick == 0 ? WindowJudging.IN_ORDER : pick == 1 ? WindowJudging.OFF : WindowJudging.ON;
  }

  /** Whether the program of this seed ends handed back to itself: a quarter of them. */
  static boolean handedBack(long programSeed) {
    return Math.floorMod(mix(programSeed + 0x632BE59BD9B4E019L), 4L) == 0;
  }

  /**
   * For a program {@link #handedBack}: the program with a last stream's work that the host then
   * waits for, as the agent hands a program back where it stops scheduling: on thread 0, a new
   * buffer filled on a stream (the thread's per-thread default stream, a blocking stream the program
   * created, or the legacy stream, by the seed) and copied on it into new page-locked memory, then
   * the stream synchronized and that memory read. The program is handed back after the copy
   * ({@link #handOverAt}). Others are returned as they are.
   */
  static Program withHandBackEnd(Program program) {
    if (!handedBack(program.seed())) {
      return program;
    }
    int buf = 0;
    int host = 0;
    List<Long> blocking = new ArrayList<>();
    for (Op op : program.ops()) {
      if (op instanceof Op.Alloc a) {
        buf = Math.max(buf, a.buf() + 1);
      } else if (op instanceof Op.AllocHost a) {
        host = Math.max(host, a.host() + 1);
      } else if (op instanceof Op.CreateStream c && !c.nonBlocking()) {
        blocking.add(c.stream());
      }
    }
    long h = mix(program.seed());
    int pick = (int) Math.floorMod(h, 3L);
    long stream = pick == 0 ? Scheduler.PER_THREAD_HANDLE : pick == 1 && !blocking.isEmpty()
        ? blocking.get((int) Math.floorMod(h >>> 8, (long) blocking.size())) : 0;
    int n = 32;
    List<Op> ops = new ArrayList<>(program.ops());
    ops.add(new Op.AllocHost(0, host, n, false));
    ops.add(new Op.Alloc(0, buf, n, h));
    ops.add(new Op.Launch(0, stream, SelfTestKernel.FILL, new Op.At(buf, 0), null, null, n, (int) (h >>> 16),
        Op.LaunchMode.PRECISE));
    ops.add(new Op.ReadAsync(0, stream, host, 0, new Op.At(buf, 0), n));
    ops.add(new Op.StreamSync(0, stream));
    ops.add(new Op.ObserveHost(0, host));
    return new Program(program.seed(), Program.wellFormed(ops), program.shapes());
  }

  /**
   * Where a program {@link #handedBack} is handed back to itself: before the calls at its end that
   * only synchronize or touch host memory; -1 for the others. Only there: the generator orders
   * device work by the program's order, as the agent keeps it, while calls made as written keep only
   * CUDA's stream order; a synchronize, and the host's reads CUDA makes well-defined after it, mean
   * the same in both.
   */
  static int handOverAt(Program program) {
    if (!handedBack(program.seed())) {
      return -1;
    }
    List<Op> ops = program.ops();
    int k = ops.size();
    while (k > 1 && synchronizesOrTouchesTheHostOnly(ops.get(k - 1))) {
      k--;
    }
    return k;
  }

  private static boolean synchronizesOrTouchesTheHostOnly(Op op) {
    return op instanceof Op.StreamSync || op instanceof Op.SyncContext || op instanceof Op.EventSync
        || op instanceof Op.ObserveHost || op instanceof Op.OpenGate || op instanceof Op.HostWrite;
  }

  private Verdict verdict(Program program, long targetSeed) {
    RunResult serial;
    int lanes = Scheduler.poolLanes(streams, classLanes(streams));
    try (ProgramTarget target = targets.open(lanes, targetSeed ^ 0x2545F4914F6CDD1DL)) {
      serial = ProgramRunner.runSerial(program, target);
    }
    RunResult scheduled;
    try (ProgramTarget target = targets.open(lanes, targetSeed)) {
      scheduled = ProgramRunner.runScheduledWithPriorities(program, target, mutant, graphs, streams, classLanes(streams),
          judgingOf(program), handOverAt(program));
    }
    return new Verdict(compare(program, serial, scheduled), scheduled.stats());
  }

  /** Shrinks a failure to a program with fewer calls that still fails. */
  public Failure shrink(Failure failure) {
    List<Op> ops = new ArrayList<>(failure.program().ops());
    Failure best = failure;
    int chunks = 2;
    while (ops.size() >= 2) {
      boolean reduced = false;
      int size = ops.size();
      for (int c = 0; c < chunks && !reduced; c++) {
        int from = c * size / chunks;
        int to = (c + 1) * size / chunks;
        List<Op> rest = new ArrayList<>(ops.subList(0, from));
        rest.addAll(ops.subList(to, size));
        Failure smaller = fails(failure.program().subset(rest), best);
        if (smaller != null) {
          best = smaller;
          ops = new ArrayList<>(smaller.program().ops());
          chunks = Math.max(chunks - 1, 2);
          reduced = true;
        }
      }
      if (!reduced) {
        if (chunks >= size) {
          break;
        }
        chunks = Math.min(chunks * 2, size);
      }
    }
    return new Failure(best.program(), best.targetSeed(), best.reason(), failure.originalSize());
  }

  /** The failure of {@code candidate} with the last failing seed or a few others; null if it passes. */
  private Failure fails(Program candidate, Failure last) {
    if (candidate.size() >= last.program().size()) {
      return null;
    }
    for (int i = 0; i < SHRINK_SEEDS; i++) {
      long seed = i == 0 ? last.targetSeed() : mix(last.targetSeed() + i);
      String reason = verdict(candidate, seed).reason;
      if (reason != null) {
        return new Failure(candidate, seed, reason, last.originalSize());
      }
    }
    return null;
  }

  /** Why the scheduled run differs from the serial one, or null when it does not. */
  static String compare(Program program, RunResult serial, RunResult scheduled) {
    StringBuilder why = new StringBuilder();
    if (serial.error() != null || !serial.faults().isEmpty()) {
      why.append("the serial reference run itself failed: ")
          .append(serial.error() != null ? serial.error() : serial.faults().get(0)).append('\n');
    }
    if (scheduled.error() != null) {
      why.append("the scheduled run threw ").append(scheduled.error()).append('\n');
    }
    if (!scheduled.faults().isEmpty()) {
      why.append("the device reported ").append(scheduled.faults().size()).append(" fault(s); the first: ")
          .append(scheduled.faults().get(0)).append('\n');
    }
    List<Observation> expected = serial.observations();
    List<Observation> actual = scheduled.observations();
    int differing = 0;
    String first = null;
    for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
      Observation e = expected.get(i);
      Observation a = actual.get(i);
      int at = firstDifference(e.bytes(), a.bytes());
      if (at >= 0 || !e.label().equals(a.label())) {
        differing++;
        if (first == null) {
          first = describeDifference(e, a, at);
        }
      }
    }
    if (scheduled.error() == null && serial.error() == null && expected.size() != actual.size()) {
      why.append("observed ").append(actual.size()).append(" results, expected ").append(expected.size()).append('\n');
    }
    if (first != null) {
      why.append(differing).append(" of ").append(expected.size()).append(" observed results differ; the first: ")
          .append(first).append('\n');
    }
    return why.length() == 0 ? null : why.toString().stripTrailing();
  }

  private static int firstDifference(byte[] a, byte[] b) {
    if (a.length != b.length) {
      return Math.min(a.length, b.length);
    }
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        return i;
      }
    }
    return -1;
  }

  private static String describeDifference(Observation expected, Observation actual, int at) {
    String where = expected.call() >= 0 ? "call #" + expected.call() + " " + expected.label() : expected.label();
    if (!expected.label().equals(actual.label())) {
      return where + ": observed " + actual.label() + " instead";
    }
    int from = Math.max(0, at / 4 * 4 - 4);
    return where + ", from byte " + at + ":\n    serial:    " + hex(expected.bytes(), from) + "\n    scheduled: "
        + hex(actual.bytes(), from);
  }

  private static String hex(byte[] bytes, int from) {
    StringBuilder s = new StringBuilder();
    s.append('@').append(from).append(' ');
    for (int i = from; i < Math.min(bytes.length, from + 16); i++) {
      s.append(String.format(Locale.ROOT, "%02x", bytes[i] & 0xFF));
      if (i % 4 == 3) {
        s.append(' ');
      }
    }
    if (bytes.length > from + 16) {
      s.append("...");
    }
    return s.toString().stripTrailing();
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
