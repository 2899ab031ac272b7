package dev.kernelweave.it.bench;

import java.util.List;

/**
 * The host time of a journal's kernel launches, as {@code inspect stats} prints it: from each call's
 * entry into the agent's advice to the real call's return, so the same measure with the scheduler
 * ({@code mode=schedule}) and without it ({@code mode=passthrough}).
 *
 * @param launches kernel launches in the journal
 * @param meanMicros their mean host time in microseconds
 */
public record LaunchHostTime(long launches, double meanMicros) {

  /** The heading of the kernel table in {@code inspect stats}. */
  static final String HEADING = "mean host us";

  /**
   * Reads the kernel table of {@code inspect stats} output (one row a kernel: name, launches, mean
   * host us) and weighs each kernel's mean by its launches. Null where the output has no such table
   * or a row does not read as one.
   */
  public static LaunchHostTime parse(List<String> statsLines) {
    int at = 0;
    while (at < statsLines.size()
        && !(statsLines.get(at).startsWith("kernels") && statsLines.get(at).contains(HEADING))) {
      at++;
    }
    long launches = 0;
    double micros = 0;
    for (at++; at < statsLines.size() && !statsLines.get(at).isBlank(); at++) {
      // The kernel's name may hold spaces ("(unknown kernel)"): the numbers are the last two words.
      String[] words = statsLines.get(at).strip().split("\\s+");
      if (words.length < 3) {
        return null;
      }
      try {
        long n = Long.parseLong(words[words.length - 2]);
        double mean = Double.parseDouble(words[words.length - 1]);
        launches += n;
        micros += n * mean;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return launches == 0 ? null : new LaunchHostTime(launches, micros / launches);
  }
}
