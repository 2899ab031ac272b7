package dev.kernelweave.call;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which {@link PriorityClass} a thread's calls get, from the agent's option {@code priority}:
 * {@code off} (every call normal), {@code thread} (the default: the Java thread priority, above
 * {@link Thread#NORM_PRIORITY} high, below it low), or thread-name globs,
 * {@code high:request-*,low:trainer-*}, the first match winning and unmatched threads normal.
 *
 * <p>Immutable and thread-safe. {@link #classOf} allocates nothing for {@code off} and
 * {@code thread}; with globs it matches a regular expression, which callers do once per thread and
 * again only when the thread's name changes.
 */
public final class ThreadPriorities {

  /** Every call normal: exactly the agent without priorities. */
  public static final ThreadPriorities OFF = new ThreadPriorities("off", List.of(), List.of());
  /** The Java thread priority decides; the default. */
  public static final ThreadPriorities THREAD = new ThreadPriorities("thread", List.of(), List.of());

  /** The accepted forms, for an error message. */
  public static final String FORMS = "off, thread, or class:glob pairs such as high:request-*,low:trainer-* "
      + "(classes high, normal, low; * and ? in globs)";

  private final String text;
  private final List<Pattern> globs;
  private final List<PriorityClass> classes;

  private ThreadPriorities(String text, List<Pattern> globs, List<PriorityClass> classes) {
    this.text = text;
    this.globs = globs;
    this.classes = classes;
  }

  /**
   * Parses the option's value.
   *
   * @throws IllegalArgumentException with a one-line message naming what is wrong
   */
  public static ThreadPriorities parse(String value) {
    if (value.equals("off")) {
      return OFF;
    }
    if (value.equals("thread")) {
      return THREAD;
    }
    List<Pattern> globs = new ArrayList<>();
    List<PriorityClass> classes = new ArrayList<>();
    for (String rule : value.split(",", -1)) {
      int colon = rule.indexOf(':');
      PriorityClass c = colon < 0 ? null : PriorityClass.ofLabel(rule.substring(0, colon).trim());
      String glob = colon < 0 ? "" : rule.substring(colon + 1).trim();
      if (c == null || glob.isEmpty()) {
        throw new IllegalArgumentException("'" + rule + "' is not class:glob");
      }
      globs.add(globPattern(glob));
      classes.add(c);
    }
    return new ThreadPriorities(value, List.copyOf(globs), List.copyOf(classes));
  }

  /** Whether calls may get a class other than normal: the scheduler then keeps lanes per class. */
  public boolean enabled() {
    return this != OFF;
  }

  /** Whether the class follows the Java thread priority (and so may change with {@link Thread#setPriority}). */
  public boolean byThreadPriority() {
    return this == THREAD;
  }

  /** The class of a thread's calls, from its name and Java priority. */
  public PriorityClass classOf(String threadName, int javaPriority) {
    if (this == OFF) {
      return PriorityClass.NORMAL;
    }
    if (this == THREAD) {
      return javaPriority > Thread.NORM_PRIORITY ? PriorityClass.HIGH
          : javaPriority < Thread.NORM_PRIORITY ? PriorityClass.LOW : PriorityClass.NORMAL;
    }
    for (int i = 0; i < globs.size(); i++) {
      if (globs.get(i).matcher(threadName).matches()) {
        return classes.get(i);
      }
    }
    return PriorityClass.NORMAL;
  }

  private static Pattern globPattern(String glob) {
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (char ch : glob.toCharArray()) {
      if (ch == '*' || ch == '?') {
        if (literal.length() > 0) {
          regex.append(Pattern.quote(literal.toString()));
          literal.setLength(0);
        }
        regex.append(ch == '*' ? ".*" : ".");
      } else {
        literal.append(ch);
      }
    }
    if (literal.length() > 0) {
      regex.append(Pattern.quote(literal.toString()));
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  /** The option's value as given. */
  @Override
  public String toString() {
    return text;
  }
}
