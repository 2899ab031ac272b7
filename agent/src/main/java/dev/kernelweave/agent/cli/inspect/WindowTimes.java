package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.text.JsonStrings;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The sampled device times of windows ({@link CallKind#WINDOW_TIME} records), per window shape:
 * how often each way was timed, the median device and host time of each (over its latest {@link
 * #KEPT} samples), and the verdict the agent reached, for {@code inspect stats}. Bounded, as the
 * rest of the statistics are: at most {@link TopTable#TRACKED} shapes are kept apart, the samples of
 * any further shape are only counted. Not thread-safe.
 */
final class WindowTimes {

  /** The samples kept per shape and way for their medians: the agent's own verdict looks at fewer. */
  static final int KEPT = 64;

  /** One way's samples of one shape: how many, and the latest {@link #KEPT}. */
  private static final class Way {
    final long[] device = new long[KEPT];
    final long[] host = new long[KEPT];
    long count;

    void add(long deviceNanos, long hostNanos) {
      int slot = (int) (count++ % KEPT);
      device[slot] = deviceNanos;
      host[slot] = hostNanos;
    }

    int kept() {
      return (int) Math.min(count, KEPT);
    }
  }

  /** The samples of one window shape in one context. */
  private static final class Shape {
    final long context;
    final long shape;
    final Way graph = new Way();
    final Way inOrder = new Way();
    String verdict = "";

    Shape(long context, long shape) {
      this.context = context;
      this.shape = shape;
    }

    String verdictText() {
      return verdict.isEmpty() ? "not yet" : verdict;
    }
  }

  private record Key(long context, long shape) {}

  /** The most shapes listed one by one; a journal of millions of shapes is summed up in their count. */
  static final int SHOWN = 20;

  private final Map<Key, Shape> shapes = new LinkedHashMap<>();
  private long samples;
  /** Samples of shapes past {@link TopTable#TRACKED}: counted, not kept. */
  private long untracked;

  void add(CallRecord r) {
    samples++;
    Key key = new Key(r.context, r.appStream);
    Shape s = shapes.get(key);
    if (s == null) {
      if (shapes.size() == TopTable.TRACKED) {
        untracked++;
        return;
      }
      s = new Shape(r.context, r.appStream);
      shapes.put(key, s);
    }
    (r.name.equals(CallKind.WINDOW_IN_ORDER) ? s.inOrder : s.graph).add(r.durationNanos, r.bytes);
    s.verdict = r.kernel;
  }

  boolean isEmpty() {
    return samples == 0;
  }

  /** Window shapes whose launches in order were found faster than their graph. */
  long inOrderChosen() {
    return shapes.values().stream().filter(s -> s.verdict.equals(CallKind.WINDOW_IN_ORDER)).count();
  }

  void print(PrintStream out) {
    out.printf(Locale.ROOT, "windows timed on the device: %d samples of %d window %s, %d issued in order%n", samples,
        shapes.size(), shapes.size() == 1 ? "shape" : "shapes", inOrderChosen());
    if (untracked > 0) {
      out.printf(Locale.ROOT, "  (and %d samples of shapes past the first %d, not told apart)%n", untracked,
          TopTable.TRACKED);
    }
    out.printf(Locale.ROOT, "  %-18s %9s %19s %11s %19s  %s%n", "shape", "graph: n", "device/host us",
        "in order: n", "device/host us", "verdict");
    int shown = 0;
    for (Shape s : shapes.values()) {
      if (shown++ == SHOWN) {
        out.printf(Locale.ROOT, "  (%d more shapes)%n", shapes.size() - SHOWN);
        break;
      }
      out.printf(Locale.ROOT, "  %-18s %9d %19s %11d %19s  %s%n", "0x" + Long.toHexString(s.shape),
          s.graph.count, pair(s.graph), s.inOrder.count, pair(s.inOrder), s.verdictText());
    }
  }

  void appendJson(StringBuilder b) {
    b.append(",\n  \"window_times\": {\"samples\": ").append(samples)
        .append(", \"samples_of_untracked_shapes\": ").append(untracked).append(", \"shapes\": [");
    String sep = "";
    for (Shape s : shapes.values()) {
      b.append(sep).append("\n    {\"context\": \"0x").append(Long.toHexString(s.context))
          .append("\", \"shape\": \"0x").append(Long.toHexString(s.shape)).append('"')
          .append(", \"graph_samples\": ").append(s.graph.count)
          .append(", \"graph_device_us\": ").append(medianMicros(s.graph.device, s.graph.kept()))
          .append(", \"graph_host_us\": ").append(medianMicros(s.graph.host, s.graph.kept()))
          .append(", \"in_order_samples\": ").append(s.inOrder.count)
          .append(", \"in_order_device_us\": ").append(medianMicros(s.inOrder.device, s.inOrder.kept()))
          .append(", \"in_order_host_us\": ").append(medianMicros(s.inOrder.host, s.inOrder.kept()))
          .append(", \"verdict\": ");
      JsonStrings.appendQuoted(b, s.verdictText());
      b.append('}');
      sep = ",";
    }
    b.append("\n  ]}");
  }

  /** CSV rows: {@code window,SHAPE,samples,way device/host us verdict}. */
  void printCsv(PrintStream out) {
    for (Shape s : shapes.values()) {
      String name = "0x" + Long.toHexString(s.shape);
      out.println("window graph," + name + "," + s.graph.count + "," + pair(s.graph));
      out.println("window in order," + name + "," + s.inOrder.count + "," + pair(s.inOrder));
      out.println("window verdict," + name + ",," + s.verdictText());
    }
  }

  private static String pair(Way way) {
    return way.count == 0 ? "-" : medianMicros(way.device, way.kept()) + "/" + medianMicros(way.host, way.kept());
  }

  /** The median of {@code nanos[0 .. n)} in microseconds, {@code null} (JSON) where there is none. */
  private static String medianMicros(long[] nanos, int n) {
    if (n == 0) {
      return "null";
    }
    long[] sorted = Arrays.copyOf(nanos, n);
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%.1f", sorted[n / 2] / 1000.0);
  }
}
