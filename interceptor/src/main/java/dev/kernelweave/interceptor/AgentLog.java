package dev.kernelweave.interceptor;

import java.io.PrintStream;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's few words on stderr (never stdout), prefixed {@code [kernelweave]}. {@code quiet}
 * says nothing at all; {@code info} says where the journal is and each warning once (a journal that
 * cannot be written, a fallback to pass-through), once per key. Thread-safe.
 */
public final class AgentLog {

  /** How much the agent says. */
  public enum Level {
    QUIET, INFO, DEBUG
  }

  private static volatile Level level = Level.INFO;
  private static volatile PrintStream out = System.err;
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  private AgentLog() {}

  public static void configure(Level newLevel, PrintStream stream) {
    level = newLevel;
    out = stream;
  }

  public static boolean debugEnabled() {
    return level == Level.DEBUG;
  }

  public static void info(String message) {
    if (level != Level.QUIET) {
      out.println("[kernelweave] " + message);
    }
  }

  public static void debug(String message) {
    if (level == Level.DEBUG) {
      out.println("[kernelweave] " + message);
    }
  }

  /** Forgets which warnings were said, as at the start of a run; for tests. */
  static void forgetWarnings() {
    SAID.clear();
  }

  /** Says a warning once per key, unless quiet. */
  public static void warnOnce(String key, String message) {
    if (SAID.add(key) && level != Level.QUIET) {
      out.println("[kernelweave] warning: " + message);
    }
  }
}
