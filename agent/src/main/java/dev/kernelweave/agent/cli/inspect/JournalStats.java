package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.journal.RunEnd;
import dev.kernelweave.journal.RunHeader;
import dev.kernelweave.text.JsonStrings;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code inspect stats}: what a journal's calls add up to. Streams the journal in bounded memory:
 * kernels and threads are counted apart up to {@link TopTable#TRACKED} each and printed up to the
 * {@link TopTable#SHOWN} busiest, the rest as one row; a bit per window replayed as a CUDA graph.
 */
public final class JournalStats {

  /** The sampled device times of windows, apart from the calls. */
  private final WindowTimes windowTimes = new WindowTimes();
  private final long[] perKind = new long[CallKind.values().length];
  private final long[] perPriority = new long[PriorityClass.values().length];
  private final TopTable<String> perKernel = new TopTable<>(Comparator.<String>naturalOrder());
  private final TopTable<Long> perThread = new TopTable<>(Comparator.<Long>naturalOrder());
  private final BitSet streams = new BitSet();
  private long calls;
  /** Which KernelWeave wrote the journal; null for a journal that does not say. */
  private RunHeader writer;
  private RunEnd runEnd;
  private long failed;
  private long firstStart = Long.MAX_VALUE;
  private long lastEnd = Long.MIN_VALUE;
  private long hostToDevice;
  private long deviceToHost;
  private long deviceToDevice;
  private long crossStreamWaits;
  private long eventsRecorded;
  private long hostWaits;
  private long hostWaitsNarrowed;
  private long barriers;
  /** Per context, the replayed windows seen (a bit per window number: windows count from 1, densely). */
  private final Map<Long, Replays> replaysPerContext = new HashMap<>();
  private long windowsReplayed;
  private long windowsCaptured;
  private long launchesReplayed;
  /** Host time of the launches replayed from a graph captured before their window. */
  private long replayedHostNanos;
  /** Launches whose window captured its graph (and replayed it) inside their calls. */
  private long launchesCapturing;
  private long capturingHostNanos;
  /** Merged launches in replays, and the launches they stood for (instances). */
  private long mergedLaunches;
  private long launchesMerged;
  /** cuBLAS routines issued inside replayed windows. */
  private long routinesReplayed;
  private long launchesAlone;
  private long aloneHostNanos;

  private static final class Replays {
    final BitSet seen = new BitSet();
    /** The last window number seen, for numbers too large for a bit index. */
    long last;
  }

  public void add(CallRecord r) {
    if (r.kind == CallKind.WINDOW_TIME) {
      windowTimes.add(r); // not a call of the program
      return;
    }
    calls++;
    perKind[r.kind.ordinal()]++;
    perPriority[r.priority.ordinal()]++;
    if (r.result != 0) {
      failed++;
    }
    firstStart = Math.min(firstStart, r.startNanos);
    lastEnd = Math.max(lastEnd, r.startNanos + r.durationNanos);
    if (r.kind == CallKind.LAUNCH) {
      TopTable.Row k = perKernel.row(r.kernel.isEmpty() ? "(unknown kernel)" : r.kernel, n -> n);
      k.count++;
      k.nanos += r.durationNanos;
    }
    TopTable.Row t = perThread.row(r.threadId, id -> r.threadName + " (" + id + ")");
    t.count++;
    t.nanos += r.durationNanos;
    switch (r.kind) {
      case COPY_HOST_TO_DEVICE -> hostToDevice += r.bytes;
      case COPY_DEVICE_TO_HOST -> deviceToHost += r.bytes;
      case COPY_DEVICE_TO_DEVICE -> deviceToDevice += r.bytes;
      default -> { }
    }
    if (r.stream >= 0) {
      streams.set(r.stream);
    }
    crossStreamWaits += r.predecessorCount;
    if (r.eventRecorded) {
      eventsRecorded++;
    }
    if (r.hostWaited) {
      hostWaits++;
    }
    if (r.hostWaitNarrowed) {
      hostWaitsNarrowed++;
    }
    if (r.barrier) {
      barriers++;
    }
    if (r.graphWindow > 0) {
      countReplay(r);
    }
    if (r.kind == CallKind.BLAS && r.graphWindow > 0) {
      routinesReplayed++;
    }
    if (r.kind == CallKind.LAUNCH) {
      if (r.graphWindow > 0) {
        launchesReplayed++;
        launchesMerged += r.merged ? 1 : 0;
        mergedLaunches += r.firstMerged ? 1 : 0;
        if (r.graphCaptured) {
          launchesCapturing++;
          capturingHostNanos += r.durationNanos;
        } else {
          replayedHostNanos += r.durationNanos;
        }
      } else {
        launchesAlone++;
        aloneHostNanos += r.durationNanos;
      }
    }
  }

  /** Counts the record's window once per (context, window), whichever of its calls comes first. */
  private void countReplay(CallRecord r) {
    Replays replays = replaysPerContext.computeIfAbsent(r.context, c -> new Replays());
    boolean first;
    if (r.graphWindow <= Integer.MAX_VALUE) {
      int bit = (int) r.graphWindow;
      first = !replays.seen.get(bit);
      replays.seen.set(bit);
    } else {
      // A replay's calls are journaled together, so a change of number is a new window.
      first = r.graphWindow != replays.last;
    }
    replays.last = r.graphWindow;
    if (first) {
      windowsReplayed++;
      if (r.graphCaptured) {
        windowsCaptured++;
      }
    }
  }

  /** Distinct (context, window) pairs replayed as a graph. */
  public long windowsReplayed() {
    return windowsReplayed;
  }

  /**
   * Mean host nanoseconds per launch replayed from a graph captured before its window; NaN when there
   * is none. A window that captures its graph pays for the capture once ({@link
   * #capturingLaunchHostNanos}): kept apart, so that this says what every later replay costs.
   */
  public double replayedLaunchHostNanos() {
    long n = launchesReplayed - launchesCapturing;
    return n == 0 ? Double.NaN : (double) replayedHostNanos / n;
  }

  /** Mean host nanoseconds per launch of a window that captured its graph; NaN when there is none. */
  public double capturingLaunchHostNanos() {
    return launchesCapturing == 0 ? Double.NaN : (double) capturingHostNanos / launchesCapturing;
  }

  /** Mean host nanoseconds per launch issued on its own; NaN when there is none. */
  public double aloneLaunchHostNanos() {
    return launchesAlone == 0 ? Double.NaN : (double) aloneHostNanos / launchesAlone;
  }

  public long calls() {
    return calls;
  }

  /** Which KernelWeave wrote the journal (its first document), or null where it does not say. */
  public void writer(RunHeader header) {
    this.writer = header;
  }

  /** How the agent's scheduling went where the calls cannot tell (the journal's last document), or null. */
  public void runEnd(RunEnd end) {
    this.runEnd = end;
  }

  public void print(PrintStream out, String journal, ZoneId zone) {
    out.println("journal " + journal);
    if (writer != null) {
      out.println("written by kernelweave " + writer.version() + " on Java " + writer.java());
    }
    if (runEnd != null && runEnd.neverEngaged()) {
      out.println("the agent never engaged: the program's " + runEnd.callsAsWritten()
          + " launches, copies and waits ran as written and are not in the journal");
    } else if (runEnd != null && runEnd.callsAsWritten() > 0) {
      out.println("the agent engaged after " + runEnd.callsAsWritten() + " calls made as written, not in the journal ("
          + runEnd.engaged() + ")");
    }
    if (runEnd != null && !runEnd.handedBack().isEmpty()) {
      out.println("the agent stopped scheduling for good (" + runEnd.handedBack()
          + "): later calls ran as written and are not in the journal");
    }
    if (calls == 0) {
      out.println("no calls");
      return;
    }
    DateTimeFormatter time = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(zone);
    out.printf(Locale.ROOT, "%d calls from %s to %s (%s), %s%n", calls,
        time.format(instant(firstStart)), time.format(instant(lastEnd)), zone.getId(),
        duration(lastEnd - firstStart));
    out.println();

    out.println("calls by kind");
    for (CallKind kind : CallKind.values()) {
      if (perKind[kind.ordinal()] > 0) {
        out.printf(Locale.ROOT, "  %-24s %10d%n", kindName(kind), perKind[kind.ordinal()]);
      }
    }
    out.printf(Locale.ROOT, "  %-24s %10d%n", "failed (result != 0)", failed);
    out.println();

    if (!perKernel.isEmpty()) {
      out.printf(Locale.ROOT, "%-26s %10s %14s%n", "kernels", "launches", "mean host us");
      for (TopTable.Row k : perKernel.rows("kernels")) {
        out.printf(Locale.ROOT, "  %-24s %10d %14.2f%n", k.name, k.count, k.nanos / 1000.0 / k.count);
      }
      out.println();
    }

    out.printf(Locale.ROOT, "%-26s %10s %14s%n", "threads", "calls", "host ms");
    for (TopTable.Row t : perThread.rows("threads")) {
      out.printf(Locale.ROOT, "  %-24s %10d %14.3f%n", t.name, t.count, t.nanos / 1e6);
    }
    out.println();

    // The class of the calling thread (option priority); journals before format 3 read as normal.
    out.println("calls by priority");
    for (PriorityClass c : PriorityClass.values()) {
      if (perPriority[c.ordinal()] > 0) {
        out.printf(Locale.ROOT, "  %-24s %10d%n", c.label(), perPriority[c.ordinal()]);
      }
    }
    out.println();

    out.println("bytes copied");
    out.printf(Locale.ROOT, "  %-24s %s%n", "host to device", bytes(hostToDevice));
    out.printf(Locale.ROOT, "  %-24s %s%n", "device to host", bytes(deviceToHost));
    out.printf(Locale.ROOT, "  %-24s %s%n", "device to device", bytes(deviceToDevice));
    out.println();

    out.printf(Locale.ROOT, "%-26s %10d%n", "synchronizations", perKind[CallKind.SYNC.ordinal()]);
    out.println();

    out.println("scheduling");
    out.printf(Locale.ROOT, "  %-24s %10d%n", "streams used", streams.cardinality());
    out.printf(Locale.ROOT, "  %-24s %10d%n", "cross-stream waits", crossStreamWaits);
    out.printf(Locale.ROOT, "  %-24s %10d%n", "events recorded", eventsRecorded);
    out.printf(Locale.ROOT, "  %-24s %10d%n", "host waits", hostWaits);
    out.printf(Locale.ROOT, "  %-24s %10d%n", "host waits narrowed", hostWaitsNarrowed);
    out.printf(Locale.ROOT, "  %-24s %10d%n", "barriers", barriers);

    if (windowsReplayed > 0) {
      long launches = perKind[CallKind.LAUNCH.ordinal()];
      out.println();
      out.println("graph replays");
      out.printf(Locale.ROOT, "  %-24s %10d%n", "windows replayed", windowsReplayed);
      out.printf(Locale.ROOT, "  %-24s %10d%n", "windows captured", windowsCaptured);
      out.printf(Locale.ROOT, "  %-24s %10d%n", "launches in replays", launchesReplayed);
      out.printf(Locale.ROOT, "  %-24s %9.1f%%%n", "share of launches",
          launches == 0 ? 0.0 : 100.0 * launchesReplayed / launches);
      if (routinesReplayed > 0) {
        out.printf(Locale.ROOT, "  %-24s %10d%n", "cuBLAS calls in replays", routinesReplayed);
      }
      if (launchesMerged > 0) {
        out.printf(Locale.ROOT, "  %-24s %10d%n", "merged launches", mergedLaunches);
        out.printf(Locale.ROOT, "  %-24s %10d%n", "launches they merged", launchesMerged);
      }
      // One graph launch stands for each replay's launches and routines.
      out.printf(Locale.ROOT, "  %-24s %10d%n", "launches saved", launchesReplayed + routinesReplayed - windowsReplayed);
      out.printf(Locale.ROOT, "  %-24s %10s%n", "mean host us, in replay", micros(replayedLaunchHostNanos()));
      out.printf(Locale.ROOT, "  %-24s %10s%n", "mean host us, capturing", micros(capturingLaunchHostNanos()));
      out.printf(Locale.ROOT, "  %-24s %10s%n", "mean host us, on its own", micros(aloneLaunchHostNanos()));
    }
    if (!windowTimes.isEmpty()) {
      out.println();
      windowTimes.print(out);
    }
  }

  /**
   * What {@link #print} prints, as one JSON object for scripts: counts as numbers, times in
   * nanoseconds since the epoch or in microseconds and milliseconds as named, a mean that has no
   * calls as {@code null}; {@code graph_replays} only when windows were replayed; {@code
   * agent_version} and {@code java_version} {@code null} for a journal that does not say them, and
   * {@code engagement} (the calls made as written before the agent engaged, why it engaged, why it
   * stopped scheduling, empty where it did not) {@code null} for one that does not say it.
   */
  public void printJson(PrintStream out, String journal) {
    StringBuilder b = new StringBuilder(4096);
    b.append("{\n  \"journal\": ");
    JsonStrings.appendQuoted(b, journal);
    b.append(",\n  \"agent_version\": ");
    if (writer == null) {
      b.append("null");
    } else {
      JsonStrings.appendQuoted(b, writer.version());
    }
    b.append(",\n  \"java_version\": ");
    if (writer == null) {
      b.append("null");
    } else {
      JsonStrings.appendQuoted(b, writer.java());
    }
    b.append(",\n  \"engagement\": ");
    if (runEnd == null) {
      b.append("null");
    } else {
      b.append("{\"calls_as_written\": ").append(runEnd.callsAsWritten()).append(", \"engaged\": ");
      JsonStrings.appendQuoted(b, runEnd.engaged());
      b.append(", \"handed_back\": ");
      JsonStrings.appendQuoted(b, runEnd.handedBack());
      b.append('}');
    }
    b.append(",\n  \"calls\": ").append(calls);
    if (calls > 0) {
      b.append(",\n  \"first_start_epoch_ns\": ").append(firstStart);
      b.append(",\n  \"last_end_epoch_ns\": ").append(lastEnd);
    }
    b.append(",\n  \"calls_by_kind\": {");
    String sep = "";
    for (CallKind kind : CallKind.values()) {
      if (perKind[kind.ordinal()] > 0) {
        b.append(sep).append("\n    ");
        JsonStrings.appendQuoted(b, kindName(kind));
        b.append(": ").append(perKind[kind.ordinal()]);
        sep = ",";
      }
    }
    b.append("\n  },\n  \"failed\": ").append(failed);
    b.append(",\n  \"calls_by_priority\": {");
    sep = "";
    for (PriorityClass c : PriorityClass.values()) {
      if (perPriority[c.ordinal()] > 0) {
        b.append(sep).append("\n    ");
        JsonStrings.appendQuoted(b, c.label());
        b.append(": ").append(perPriority[c.ordinal()]);
        sep = ",";
      }
    }
    b.append("\n  }");
    b.append(",\n  \"kernels\": [");
    sep = "";
    for (TopTable.Row k : perKernel.rows("kernels")) {
      b.append(sep).append("\n    {\"name\": ");
      JsonStrings.appendQuoted(b, k.name);
      b.append(", \"launches\": ").append(k.count).append(", \"mean_host_us\": ")
          .append(jsonNumber(k.nanos / 1000.0 / k.count)).append('}');
      sep = ",";
    }
    b.append("\n  ],\n  \"threads\": [");
    sep = "";
    for (TopTable.Row t : perThread.rows("threads")) {
      b.append(sep).append("\n    {\"name\": ");
      JsonStrings.appendQuoted(b, t.name);
      b.append(", \"calls\": ").append(t.count).append(", \"host_ms\": ").append(jsonNumber(t.nanos / 1e6)).append('}');
      sep = ",";
    }
    b.append("\n  ],\n  \"bytes_copied\": {\"host_to_device\": ").append(hostToDevice)
        .append(", \"device_to_host\": ").append(deviceToHost)
        .append(", \"device_to_device\": ").append(deviceToDevice).append('}');
    b.append(",\n  \"synchronizations\": ").append(perKind[CallKind.SYNC.ordinal()]);
    b.append(",\n  \"scheduling\": {\"streams_used\": ").append(streams.cardinality())
        .append(", \"cross_stream_waits\": ").append(crossStreamWaits)
        .append(", \"events_recorded\": ").append(eventsRecorded)
        .append(", \"host_waits\": ").append(hostWaits)
        .append(", \"host_waits_narrowed\": ").append(hostWaitsNarrowed)
        .append(", \"barriers\": ").append(barriers).append('}');
    if (windowsReplayed > 0) {
      b.append(",\n  \"graph_replays\": {\"windows_replayed\": ").append(windowsReplayed)
          .append(", \"windows_captured\": ").append(windowsCaptured)
          .append(", \"launches_in_replays\": ").append(launchesReplayed)
          .append(", \"cublas_calls_in_replays\": ").append(routinesReplayed)
          .append(", \"merged_launches\": ").append(mergedLaunches)
          .append(", \"launches_merged\": ").append(launchesMerged)
          .append(", \"launches_saved\": ").append(launchesReplayed + routinesReplayed - windowsReplayed)
          .append(", \"mean_host_us_in_replay\": ").append(jsonNumber(replayedLaunchHostNanos() / 1000.0))
          .append(", \"mean_host_us_capturing\": ").append(jsonNumber(capturingLaunchHostNanos() / 1000.0))
          .append(", \"mean_host_us_on_its_own\": ").append(jsonNumber(aloneLaunchHostNanos() / 1000.0)).append('}');
    }
    if (!windowTimes.isEmpty()) {
      windowTimes.appendJson(b);
    }
    b.append("\n}");
    out.println(b);
  }

  /**
   * What {@link #print} prints, one row per figure for spreadsheets: {@code section,name,count,value},
   * where value is the mean host microseconds of a kernel's launches, a thread's host milliseconds,
   * or empty.
   */
  public void printCsv(PrintStream out, String journal) {
    out.println("section,name,count,value");
    csv(out, "journal", journal, "", "");
    if (writer != null) {
      csv(out, "written by", "kernelweave", "", writer.version());
      csv(out, "written by", "java", "", writer.java());
    }
    if (runEnd != null) {
      csv(out, "engagement", "calls as written", Long.toString(runEnd.callsAsWritten()), "");
      csv(out, "engagement", "engaged", "", csvField(runEnd.engaged()));
      csv(out, "engagement", "handed back", "", csvField(runEnd.handedBack()));
    }
    csv(out, "calls", "all", Long.toString(calls), "");
    for (CallKind kind : CallKind.values()) {
      if (perKind[kind.ordinal()] > 0) {
        csv(out, "kind", kindName(kind), Long.toString(perKind[kind.ordinal()]), "");
      }
    }
    csv(out, "kind", "failed (result != 0)", Long.toString(failed), "");
    for (PriorityClass c : PriorityClass.values()) {
      if (perPriority[c.ordinal()] > 0) {
        csv(out, "priority", c.label(), Long.toString(perPriority[c.ordinal()]), "");
      }
    }
    for (TopTable.Row k : perKernel.rows("kernels")) {
      csv(out, "kernel", k.name, Long.toString(k.count), String.format(Locale.ROOT, "%.3f", k.nanos / 1000.0 / k.count));
    }
    for (TopTable.Row t : perThread.rows("threads")) {
      csv(out, "thread", t.name, Long.toString(t.count), String.format(Locale.ROOT, "%.3f", t.nanos / 1e6));
    }
    csv(out, "bytes", "host to device", Long.toString(hostToDevice), "");
    csv(out, "bytes", "device to host", Long.toString(deviceToHost), "");
    csv(out, "bytes", "device to device", Long.toString(deviceToDevice), "");
    csv(out, "scheduling", "synchronizations", Long.toString(perKind[CallKind.SYNC.ordinal()]), "");
    csv(out, "scheduling", "streams used", Long.toString(streams.cardinality()), "");
    csv(out, "scheduling", "cross-stream waits", Long.toString(crossStreamWaits), "");
    csv(out, "scheduling", "events recorded", Long.toString(eventsRecorded), "");
    csv(out, "scheduling", "host waits", Long.toString(hostWaits), "");
    csv(out, "scheduling", "host waits narrowed", Long.toString(hostWaitsNarrowed), "");
    csv(out, "scheduling", "barriers", Long.toString(barriers), "");
    if (windowsReplayed > 0) {
      csv(out, "graph", "windows replayed", Long.toString(windowsReplayed), "");
      csv(out, "graph", "windows captured", Long.toString(windowsCaptured), "");
      csv(out, "graph", "launches in replays", Long.toString(launchesReplayed), "");
      csv(out, "graph", "cuBLAS calls in replays", Long.toString(routinesReplayed), "");
      csv(out, "graph", "mean host us, in replay", "", micros(replayedLaunchHostNanos()).replace("-", ""));
      csv(out, "graph", "mean host us, capturing", "", micros(capturingLaunchHostNanos()).replace("-", ""));
      csv(out, "graph", "mean host us, on its own", "", micros(aloneLaunchHostNanos()).replace("-", ""));
    }
    windowTimes.printCsv(out);
  }

  private static void csv(PrintStream out, String section, String name, String count, String value) {
    out.println(section + "," + csvField(name) + "," + count + "," + value);
  }

  /** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
  static String csvField(String s) {
    return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
        ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }

  private static String kindName(CallKind kind) {
    return kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  private static String jsonNumber(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String micros(double nanos) {
    return Double.isNaN(nanos) ? "-" : String.format(Locale.ROOT, "%.2f", nanos / 1000.0);
  }

  static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  static String duration(long nanos) {
    if (nanos < 1_000_000L) {
      return String.format(Locale.ROOT, "%.3f us", nanos / 1e3);
    }
    if (nanos < 1_000_000_000L) {
      return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s (%d bytes)", v, units[u], n);
  }
}
