package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sampled device times of windows ({@link CallKind#WINDOW_TIME} records), per window shape:
 * how often each way was timed, the median device and host time of each, and the verdict the
 * agent reached, for {@code inspect stats}. Not thread-safe.
 */
final class WindowTimes {

  /** The samples of one window shape in one context. */
  private static final class Shape {
    final long context;
    final long shape;
    final List<Long> graphDevice = new ArrayList<>();
    final List<Long> graphHost = new ArrayList<>();
    final List<Long> inOrderDevice = new ArrayList<>();
    final List<Long> inOrderHost = new ArrayList<>();
    String verdict = "";

    Shape(long context, long shape) {
      this.context = context;
      this.shape = shape;
    }

    String verdictText() {
      return verdict.isEmpty() ? "not yet" : verdict;
    }
  }

  /** The most shapes listed one by one; a journal of millions of shapes is summed up in their count. */
  static final int SHOWN = 20;

  private final Map<String, Shape> shapes = new LinkedHashMap<>();
  private long samples;

  void add(CallRecord r) {
    samples++;
    Shape s = shapes.computeIfAbsent(Long.toHexString(r.context) + "/" + Long.toHexString(r.appStream),
        k -> new Shape(r.context, r.appStream));
    boolean inOrder = r.name.equals(CallKind.WINDOW_IN_ORDER);
    (inOrder ? s.inOrderDevice : s.graphDevice).add(r.durationNanos);
    (inOrder ? s.inOrderHost : s.graphHost).add(r.bytes);
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
    out.printf(Locale.ROOT, "  %-18s %9s %19s %11s %19s  %s%n", "shape", "graph: n", "device/host us",
        "in order: n", "device/host us", "verdict");
    int shown = 0;
    for (Shape s : shapes.values()) {
      if (shown++ == SHOWN) {
        out.printf(Locale.ROOT, "  (%d more shapes)%n", shapes.size() - SHOWN);
        break;
      }
      out.printf(Locale.ROOT, "  %-18s %9d %19s %11d %19s  %s%n", "0x" + Long.toHexString(s.shape),
          s.graphDevice.size(), pair(s.graphDevice, s.graphHost), s.inOrderDevice.size(),
          pair(s.inOrderDevice, s.inOrderHost), s.verdictText());
    }
  }

  void appendJson(StringBuilder b) {
    b.append(",\n  \"window_times\": {\"samples\": ").append(samples).append(", \"shapes\": [");
    String sep = "";
    for (Shape s : shapes.values()) {
      b.append(sep).append("\n    {\"context\": \"0x").append(Long.toHexString(s.context))
          .append("\", \"shape\": \"0x").append(Long.toHexString(s.shape)).append('"')
          .append(", \"graph_samples\": ").append(s.graphDevice.size())
          .append(", \"graph_device_us\": ").append(medianMicros(s.graphDevice))
          .append(", \"graph_host_us\": ").append(medianMicros(s.graphHost))
          .append(", \"in_order_samples\": ").append(s.inOrderDevice.size())
          .append(", \"in_order_device_us\": ").append(medianMicros(s.inOrderDevice))
          .append(", \"in_order_host_us\": ").append(medianMicros(s.inOrderHost))
          .append(", \"verdict\": ");
      JsonText.string(b, s.verdictText());
      b.append('}');
      sep = ",";
    }
    b.append("\n  ]}");
  }

  /** CSV rows: {@code window,SHAPE,samples,way device/host us verdict}. */
  void printCsv(PrintStream out) {
    for (Shape s : shapes.values()) {
      String name = "0x" + Long.toHexString(s.shape);
      out.println("window graph," + name + "," + s.graphDevice.size() + "," + pair(s.graphDevice, s.graphHost));
      out.println("window in order," + name + "," + s.inOrderDevice.size() + "," + pair(s.inOrderDevice, s.inOrderHost));
      out.println("window verdict," + name + ",," + s.verdictText());
    }
  }

  private static String pair(List<Long> device, List<Long> host) {
    return device.isEmpty() ? "-" : medianMicros(device) + "/" + medianMicros(host);
  }

  private static String medianMicros(List<Long> nanos) {
    if (nanos.isEmpty()) {
      return "null";
    }
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    return String.format(Locale.ROOT, "%.1f", sorted.get(sorted.size() / 2) / 1000.0);
  }
}
