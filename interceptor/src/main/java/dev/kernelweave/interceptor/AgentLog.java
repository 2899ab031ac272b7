package dev.kernelweave.interceptor;

import java.io.PrintStream;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's few words on stderr (never stdout), prefixed {@code [kernelweave]}. {@code quiet}
 * says nothing at all; {@code info} says where the journal is and each warning once (a journal that
 * cannot be written, a fallback to pass-through), once per key. {@code system} hands every line,
 * debug ones included, to the {@link System.Logger} named {@value #LOGGER_NAME} at its level
 * (warnings at WARNING), so that the application's logging configuration decides what is shown
 * and where.
 *
 * <p>One log for the process: this class is shared by every copy of the interceptor's classes (one
 * per class loader that holds JCuda, see {@code install.HelperInjection}), so its configuration
 * cannot live in a loader's {@link AgentState}; it is one immutable object, held by {@link
 * #current} and replaced whole by {@link #configure}. Thread-safe.
 */
public final class AgentLog {

  /** The {@link System.Logger} the lines go to at {@link Level#SYSTEM}. */
  public static final String LOGGER_NAME = "dev.kernelweave";

  /** How much the agent says, and where. */
  public enum Level {
    QUIET, INFO, DEBUG,
    /** Everything, through {@link System.Logger}, whose configuration filters it. */
    SYSTEM
  }

  /** The process's log: its level, its stream and the warnings said; replaced, never changed. */
  private static volatile AgentLog current = new AgentLog(Level.INFO, System.err, ConcurrentHashMap.newKeySet());

  private final Level level;
  private final PrintStream out;
  /** The keys of the warnings said, kept across {@link #configure}. */
  private final Set<String> said;

  private AgentLog(Level level, PrintStream out, Set<String> said) {
    this.level = level;
    this.out = out;
    this.said = said;
  }

  /** @param stream where the lines go, unless {@code newLevel} is {@link Level#SYSTEM} */
  public static void configure(Level newLevel, PrintStream stream) {
    current = new AgentLog(newLevel, stream, current.said);
  }

  public static boolean debugEnabled() {
    Level l = current.level;
    return l == Level.DEBUG || l == Level.SYSTEM && SystemLogger.LOGGER.isLoggable(System.Logger.Level.DEBUG);
  }

  public static void info(String message) {
    say(System.Logger.Level.INFO, "", message);
  }

  public static void debug(String message) {
    Level l = current.level;
    if (l == Level.DEBUG || l == Level.SYSTEM) {
      say(System.Logger.Level.DEBUG, "", message);
    }
  }

  /** Forgets which warnings were said, as at the start of a run; for tests. */
  static void forgetWarnings() {
    AgentLog log = current;
    current = new AgentLog(log.level, log.out, ConcurrentHashMap.newKeySet());
  }

  /** Says a warning once per key, unless quiet. */
  public static void warnOnce(String key, String message) {
    if (current.said.add(key)) {
      say(System.Logger.Level.WARNING, "warning: ", message);
    }
  }

  private static void say(System.Logger.Level severity, String label, String message) {
    AgentLog log = current;
    if (log.level == Level.SYSTEM) {
      SystemLogger.LOGGER.log(severity, message);
    } else if (log.level != Level.QUIET) {
      log.out.println("[kernelweave] " + label + message);
    }
  }

  /**
   * Holds the logger, so that it is looked up at the first line logged, not at the agent's start:
   * the application may configure its logging in its main method, after the agent started.
   */
  private static final class SystemLogger {
    static final System.Logger LOGGER = System.getLogger(LOGGER_NAME);
  }
}
