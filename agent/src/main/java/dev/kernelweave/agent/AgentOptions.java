package dev.kernelweave.agent;

import dev.kernelweave.call.ThreadPriorities;
import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.Mode;
import dev.kernelweave.journal.JournalRetention;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.scheduler.WindowJudging;
import dev.kernelweave.selftest.HotPathWarmup;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * The agent's options, from {@code -javaagent:kernelweave-agent.jar=key=value,...}, {@code
 * -Dkernelweave.key=value}, {@code KERNELWEAVE_KEY=value} and a properties file, in that order of
 * precedence ({@link OptionSources}). Immutable.
 *
 * @param mode what the agent does with the calls
 * @param journal where the journal goes; null when off, {@link #DEFAULT_JOURNAL} for the user's
 *     default journal directory
 * @param streams the agent's streams per context
 * @param ptx whether kernels' read/write sets come from their PTX
 * @param graphs whether repeated windows of launches are replayed as CUDA graphs
 * @param log how much the agent says, and where: stderr, or {@link System.Logger} for {@code system}
 * @param journalKeep how many runs the default journal directory keeps (the newest)
 * @param journalMaxBytes how many bytes the default journal directory's runs may hold together
 * @param priority which priority class each thread's calls get
 * @param warmupMillis CPU milliseconds a thread of the agent spends running self-test programs on
 *     the simulated device once JCuda loads, so that the JIT compiles the scheduler's per-call code
 *     before the program's first repetitions need it ({@link HotPathWarmup}); 0 for none
 * @param judge how each known window is issued: as the device judges from sampled times ({@code
 *     on}), between its graph and its launches in order on one lane; always its graph ({@code off});
 *     always in order ({@code in-order})
 * @param merge whether a repeated window's graph merges independent launches of one kernel into one
 *     launch of its merged variant (needs graphs and PTX); off by default until measured on the GPU
 * @param engage when the agent starts tracking and scheduling the program's device work ({@code
 *     interceptor/Engagement}): {@link #ENGAGE_AUTO} (the default: once the program shows that it
 *     pays), {@link #ENGAGE_AT_ONCE}, {@link #ENGAGE_WHEN_WARM} (once the warm-up has compiled the
 *     interception, or at once where no warm-up runs), or after that many calls made as written
 * @param handBack whether the agent stops scheduling, for good, where threads calling one context at
 *     once wait for each other in the agent and few launches are replayed ({@code handback=on}, the
 *     default): the program then runs as written, as fast as without the agent
 */
public record AgentOptions(Mode mode, Path journal, int streams, boolean ptx, boolean graphs, AgentLog.Level log,
    int journalKeep, long journalMaxBytes, ThreadPriorities priority, int warmupMillis, WindowJudging judge,
    boolean merge, long engage, boolean handBack) {

  /** {@link #engage}: once the warm-up has compiled the interception; at once where there is no warm-up. */
  public static final long ENGAGE_WHEN_WARM = -1;
  /** {@link #engage}: from the program's first call. */
  public static final long ENGAGE_AT_ONCE = 0;
  /**
   * {@link #engage}: at a run of launches in a row that a graph pays for, or once the
   * program is long enough to pay for the agent's start; short programs with nothing of the kind run
   * as written.
   */
  public static final long ENGAGE_AUTO = -2;

  /**
   * Whether engagement waits for the program ({@code engage=auto} or a count): work that only
   * scheduled calls need, such as the JIT warm-up, then starts at the engagement, since a program
   * that never engages runs without it.
   */
  public boolean engagementWaitsForTheProgram() {
    return engage > 0 || engage == ENGAGE_AUTO;
  }

  /** {@link #journal} when none was named: the user's default journal directory, at the first CUDA call. */
  public static final Path DEFAULT_JOURNAL = Path.of("");

  static final String KEYS =
      "mode, journal, streams, ptx, graphs, judge, merge, log, journal-keep, journal-max-bytes, priority, warmup, engage,"
      + " handback";
  static final int MAX_KEEP = 100_000;
  static final int MAX_STREAMS = 64;
  static final int MAX_WARMUP_MILLIS = 60_000;
  /** The warm-up's default CPU time, where the machine has {@link #WARMUP_PROCESSORS} processors or more. */
  static final int DEFAULT_WARMUP_MILLIS = 1000;
  /**
   * The fewest processors on which the warm-up is on by default: it pays where a core is idle
   * while the program starts CUDA; on fewer, it takes a core from the program and its own
   * compilations.
   */
  static final int WARMUP_PROCESSORS = 4;

  /** An option the agent cannot accept; the message names it and the accepted values. */
  public static final class InvalidOption extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    InvalidOption(String message) {
      super(message);
    }
  }

  /**
   * The defaults: schedule, a journal in the user's default journal directory (the newest 20 runs,
   * at most 1 GiB, kept), PTX analysis and graphs on, and as many
   * streams as the driver has hardware queues: {@code CUDA_DEVICE_MAX_CONNECTIONS} where the
   * environment sets it (1 to 32), else {@link Scheduler#DEFAULT_STREAMS}; a warm-up of {@link
   * #DEFAULT_WARMUP_MILLIS} of CPU time on a machine of {@link #WARMUP_PROCESSORS} processors or
   * more, none on a smaller one.
   */
  public static AgentOptions defaults() {
    return new AgentOptions(Mode.SCHEDULE, DEFAULT_JOURNAL, defaultStreams(System.getenv("CUDA_DEVICE_MAX_CONNECTIONS")),
        true, true, AgentLog.Level.INFO, JournalRetention.DEFAULT_KEEP_RUNS, JournalRetention.DEFAULT_MAX_BYTES,
        ThreadPriorities.THREAD, defaultWarmupMillis(Runtime.getRuntime().availableProcessors()), WindowJudging.ON,
        false, ENGAGE_AUTO, true);
  }

  static int defaultWarmupMillis(int processors) {
    return processors >= WARMUP_PROCESSORS ? DEFAULT_WARMUP_MILLIS : 0;
  }

  static int defaultStreams(String maxConnections) {
    try {
      int n = maxConnections == null ? Scheduler.DEFAULT_STREAMS : Integer.parseInt(maxConnections.trim());
      return n >= 1 && n <= 32 ? n : Scheduler.DEFAULT_STREAMS;
    } catch (NumberFormatException e) {
      return Scheduler.DEFAULT_STREAMS;
    }
  }

  /** Parses the agent argument and the {@code kernelweave.*} system properties, without the environment. */
  public static AgentOptions parse(String agentArgument, Properties system) {
    return parse(agentArgument, system, Map.of());
  }

  /**
   * Parses the options from all their sources, the strongest first: the agent argument, the {@code
   * kernelweave.*} system properties, {@code KERNELWEAVE_*} environment variables, a properties
   * file ({@link OptionSources}).
   *
   * @throws InvalidOption naming the first option that is unknown or has a bad value, and its source
   */
  public static AgentOptions parse(String agentArgument, Properties system, Map<String, String> environment) {
    return OptionSources.parse(OptionSources.collect(agentArgument, system, environment));
  }

  /** The options from values by key, over the defaults. */
  static AgentOptions fromValues(Map<String, String> values) {
    AgentOptions o = defaults();
    Mode mode = o.mode();
    Path journal = o.journal();
    int streams = o.streams();
    boolean ptx = o.ptx();
    boolean graphs = o.graphs();
    WindowJudging judge = o.judge();
    AgentLog.Level log = o.log();
    int journalKeep = o.journalKeep();
    long journalMaxBytes = o.journalMaxBytes();
    ThreadPriorities priority = o.priority();
    int warmupMillis = o.warmupMillis();
    boolean merge = o.merge();
    long engage = o.engage();
    boolean handBack = o.handBack();
    for (Map.Entry<String, String> e : values.entrySet()) {
      String v = e.getValue();
      switch (e.getKey()) {
        case "mode" -> mode = switch (v) {
          case "schedule" -> Mode.SCHEDULE;
          case "passthrough" -> Mode.PASSTHROUGH;
          default -> throw bad("mode", v, "schedule or passthrough");
        };
        case "journal" -> {
          if (v.isEmpty()) {
            throw bad("journal", v, "a directory or off");
          }
          journal = v.equals("off") ? null : Path.of(v);
        }
        case "streams" -> streams = wholeNumber("streams", v, 1, MAX_STREAMS, "a whole number from 1 to " + MAX_STREAMS);
        case "ptx" -> ptx = onOff("ptx", v);
        case "graphs" -> graphs = onOff("graphs", v);
        case "judge" -> {
          judge = WindowJudging.ofOption(v);
          if (judge == null) {
            throw bad("judge", v, "on, off or in-order");
          }
        }
        case "log" -> log = switch (v) {
          case "quiet" -> AgentLog.Level.QUIET;
          case "info" -> AgentLog.Level.INFO;
          case "debug" -> AgentLog.Level.DEBUG;
          case "system" -> AgentLog.Level.SYSTEM;
          default -> throw bad("log", v, "quiet, info, debug or system");
        };
        case "journal-keep" ->
            journalKeep = wholeNumber("journal-keep", v, 1, MAX_KEEP, "a whole number of runs from 1 to " + MAX_KEEP);
        case "journal-max-bytes" -> {
          journalMaxBytes = bytes(v);
          if (journalMaxBytes < 1) {
            throw bad("journal-max-bytes", v, "a size above 0: bytes, or with k, m, g or t (1024s), as in 1g");
          }
        }
        case "priority" -> {
          try {
            priority = ThreadPriorities.parse(v);
          } catch (IllegalArgumentException ex) {
            throw bad("priority", v, ThreadPriorities.FORMS + " (" + ex.getMessage() + ")");
          }
        }
        case "warmup" -> warmupMillis = v.equals("off") ? 0
            : wholeNumber("warmup", v, 0, MAX_WARMUP_MILLIS, "off, or CPU milliseconds from 0 to " + MAX_WARMUP_MILLIS);
        case "merge" -> merge = onOff("merge", v);
        case "handback" -> handBack = onOff("handback", v);
        case "engage" -> engage = switch (v) {
          case "when-warm" -> ENGAGE_WHEN_WARM;
          case "at-once" -> ENGAGE_AT_ONCE;
          case "auto" -> ENGAGE_AUTO;
          default -> wholeNumber("engage", v, 1, Integer.MAX_VALUE,
              "auto, at-once, when-warm, or a whole number of calls made as written first, from 1");
        };
        default -> throw new InvalidOption("unknown option '" + e.getKey() + "'; accepted keys: " + KEYS);
      }
    }
    return new AgentOptions(mode, journal, streams, ptx, graphs, log, journalKeep, journalMaxBytes, priority, warmupMillis,
        judge, merge, engage, handBack);
  }

  /** {@code v} as a whole number from {@code min} to {@code max}; otherwise {@link #bad}, saying what is {@code expected}. */
  private static int wholeNumber(String key, String v, int min, int max, String expected) {
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException ex) {
      throw bad(key, v, expected);
    }
    if (n < min || n > max) {
      throw bad(key, v, expected);
    }
    return n;
  }

  /** {@code on} as true, {@code off} as false; anything else is {@link #bad}. */
  private static boolean onOff(String key, String v) {
    return switch (v) {
      case "on" -> true;
      case "off" -> false;
      default -> throw bad(key, v, "on or off");
    };
  }

  /** {@code 512}, {@code 64k}, {@code 1g}...: binary units, either case; -1 when not a size that fits a long. */
  static long bytes(String v) {
    if (v.isEmpty()) {
      return -1;
    }
    int shift = switch (Character.toLowerCase(v.charAt(v.length() - 1))) {
      case 'k' -> 10;
      case 'm' -> 20;
      case 'g' -> 30;
      case 't' -> 40;
      default -> 0;
    };
    String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    try {
      long n = Long.parseLong(digits);
      return n > (Long.MAX_VALUE >> shift) ? -1 : n << shift;
    } catch (NumberFormatException tooLong) {
      return -1;
    }
  }

  private static InvalidOption bad(String key, String value, String accepted) {
    return new InvalidOption("option " + key + "=" + value + " is not valid; accepted: " + accepted);
  }
}
