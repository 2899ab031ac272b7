package dev.kernelweave.kernels;

import java.util.function.Function;

/**
 * The words of a main's command line, read left to right: each is either a word that stands alone
 * or an option followed by its value. What a word means is the caller's to decide; this class walks
 * the words and says, in the same words for every main of this package, what is missing or is not
 * a number. Not thread-safe: one parse reads one instance.
 */
final class CommandLine {

  private final String[] words;
  private int next;

  CommandLine(String[] words) {
    this.words = words;
  }

  /** Whether a word is left. */
  boolean hasNext() {
    return next < words.length;
  }

  /** The next word; {@link #hasNext} must be true. */
  String next() {
    return words[next++];
  }

  /** The word after {@code option}, its value; an option that ends the line has none. */
  String valueOf(String option) {
    if (!hasNext()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return next();
  }

  /**
   * What {@code parse} makes of {@code args}, once a GPU is known to be usable: how a main that
   * needs one starts. A bad line ends the process with status 2, no usable GPU with status 3, each
   * after one line on standard error that starts with {@code program}.
   */
  static <T> T parseForGpu(String program, String[] args, Function<String[], T> parse) {
    T options;
    try {
      options = parse.apply(args);
    } catch (IllegalArgumentException e) {
      System.err.println(program + ": " + e.getMessage());
      System.exit(2);
      return null;
    }
    if (!Gpu.available()) {
      System.err.println(program + ": " + Gpu.problem());
      System.exit(3);
    }
    return options;
  }

  /** {@code value}, given for {@code option}, as a whole number of at least {@code least}. */
  static int wholeNumber(String option, String value, int least) {
    int n;
    try {
      n = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, got '" + value + "'");
    }
    if (n < least) {
      throw new IllegalArgumentException(option + " must be at least " + least + ", got " + n);
    }
    return n;
  }
}
