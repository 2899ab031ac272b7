package dev.kernelweave.kernels;

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
