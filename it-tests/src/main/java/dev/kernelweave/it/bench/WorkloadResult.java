package dev.kernelweave.it.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one workload JVM reported on its {@code KW-RESULT {json}} line.
 *
 * @param name the workload
 * @param variant {@code serial} or {@code tuned}
 * @param size {@code check} or {@code bench}
 * @param sizes the workload's own description of its problem sizes
 * @param ms the time of each timed repetition, in milliseconds
 * @param checksum SHA-256 (hex) of the output bytes
 * @param reference {@code ok}, {@code skipped} or {@code mismatch: ...}
 * @param timedFrom when the first timed repetition began (ISO-8601), after the warm-ups; null where
 *     the line does not say
 * @param warmups how many untimed repetitions ran first; -1 where the line does not say
 */
public record WorkloadResult(
    String name,
    String variant,
    String size,
    String sizes,
    List<Double> ms,
    String checksum,
    String reference,
    String timedFrom,
    int warmups) {

  /** The marker that starts the result line. */
  public static final String PREFIX = "KW-RESULT ";

  public WorkloadResult {
    ms = List.copyOf(ms);
  }

  /** Whether the output matched the workload's reference. */
  public boolean referenceOk() {
    return reference.equals("ok") || reference.equals("skipped");
  }

  /**
   * Finds the result line in a workload's output (the last one, should there be several) and reads
   * it.
   *
   * @throws IllegalArgumentException where there is no result line or it does not follow the
   *     protocol
   */
  public static WorkloadResult parse(List<String> outputLines) {
    for (int i = outputLines.size() - 1; i >= 0; i--) {
      String line = outputLines.get(i).strip();
      if (line.startsWith(PREFIX)) {
        return parseLine(line);
      }
    }
    throw new IllegalArgumentException("no '" + PREFIX.strip() + "' line in the output");
  }

  /** Reads one {@code KW-RESULT {json}} line. */
  public static WorkloadResult parseLine(String line) {
    String body = line.strip();
    if (!body.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a result line: " + line);
    }
    if (!(Json.parse(body.substring(PREFIX.length())) instanceof Map<?, ?> json)) {
      throw new IllegalArgumentException("the result is not a JSON object: " + line);
    }
    if (!(json.get("ms") instanceof List<?> times)) {
      throw new IllegalArgumentException("result without an \"ms\" array: " + line);
    }
    List<Double> ms = new ArrayList<>();
    for (Object t : times) {
      if (!(t instanceof Double d) || !Double.isFinite(d) || d < 0) {
        throw new IllegalArgumentException("\"ms\" holds " + t + ", not a time: " + line);
      }
      ms.add(d);
    }
    return new WorkloadResult(
        text(json, "name", line),
        text(json, "variant", line),
        text(json, "size", line),
        text(json, "sizes", line),
        ms,
        text(json, "checksum", line),
        text(json, "reference", line),
        json.get("timedFrom") instanceof String t ? t : null,
        json.get("warmups") instanceof Double w && w >= 0 && w == Math.rint(w) ? w.intValue() : -1);
  }

  private static String text(Map<?, ?> json, String key, String line) {
    if (!(json.get(key) instanceof String s)) {
      throw new IllegalArgumentException("result without a string \"" + key + "\": " + line);
    }
    return s;
  }
}
