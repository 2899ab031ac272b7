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
 * and where. Thread-safe.
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

  private static volatile Level level = Level.INFO;
  private static volatile PrintStream out = System.err;
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  private AgentLog() {}

  /** @param stream where the lines go, unless {@code newLevel} is {@link Level#SYSTEM} */
  public static void configure(Level newLevel, PrintStream stream) {
    level = newLevel;
    out = stream;
  }

  public static boolean debugEnabled() {
    Level l = level;
    return l == Level.DEBUG || l == Level.SYSTEM && SystemLogger.LOGGER.isLoggable(System.Logger.Level.DEBUG);
  }

  public static void info(String message) {
    say(System.Logger.Level.INFO, "", message);
  }

  public static void debug(String message) {
    if (level == Level.DEBUG || level == Level.SYSTEM) {
      say(System.Logger.Level.DEBUG, "", message);
    }
  }

  /** Forgets which warnings were said, as at the start of a run; for tests. */
  static void forgetWarnings() {
    SAID.clear();
  }

  /** Says a warning once per key, unless quiet. */
  public static void warnOnce(String key, String message) {
    if (SAID.add(key)) {
      say(System.Logger.Level.WARNING, "warning: ", message);
    }
  }

  private static void say(System.Logger.Level severity, String label, String message) {
    Level l = level;
    if (l == Level.SYSTEM) {
      SystemLogger.LOGGER.log(severity, message);
    } else if (l != Level.QUIET) {
      out.println("[kernelweave] " + label + message);
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
