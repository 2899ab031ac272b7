package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.text.JsonStrings;
import java.io.IOException;
import java.io.Writer;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code inspect trace}: the journal as Chrome Trace Event Format JSON, which Perfetto and
 * {@code chrome://tracing} open. Process 1 ("application threads") has a track per application
 * thread with a complete event ({@code "ph":"X"}) for each call's host time; process 2 ("agent
 * streams") has a track per agent stream ("host: stream N") with the calls issued there, and flow
 * arrows from each cross-stream predecessor to the call that waited for it (when the predecessor
 * is among the last {@value #FLOW_WINDOW} stream calls). Times are microseconds since {@code
 * origin}, the earliest start in the journal.
 *
 * <p>Every slice is host time: when the application's thread made the call and how long the call
 * took on the host, never when the GPU ran it. A stream track shows the same times as the thread
 * track, placed on the stream the agent chose; a user of Nsight Systems would read a stream row as
 * GPU time, so the tracks, the process, each stream slice ({@code "clock":"host"}) and the trace's
 * {@code otherData} say so.
 *
 * <p>A window of launches replayed as a CUDA graph is one slice on its stream's track, named
 * {@code graph replay #N (K launches)} (category {@code graph}), spanning its launches, which are
 * nested inside it; a launch that ran as an instance of a merged launch says so ({@code "merged"}),
 * and the replay's slice counts its merged launches ({@code "mergedLaunches"}).
 *
 * <p>The sampled device times of windows ({@code WINDOW_TIME} records, {@code judge=on}) are GPU
 * time, on tracks of their own in process 3 ("device, sampled windows"), one per agent stream
 * ("GPU: stream N"): a slice per sampled window, as long as the device ran it, placed where the
 * host began to issue it (the device may have started it later; the journal has no device clock).
 *
 * <p>Streams the journal: the events are written as they are read, except a replay's launches on
 * the stream track, held until the replay's slice is written (one open replay per context). Memory
 * is bounded: the first {@value #THREADS_NAMED} threads get a name; later ones keep their id only.
 */
public final class ChromeTrace implements AutoCloseable {

  static final int THREADS_PID = 1;
  static final int STREAMS_PID = 2;
  static final int DEVICE_PID = 3;
  /** A device track's name before its number: its slices are GPU time. */
  static final String DEVICE_TRACK_PREFIX = "GPU: stream ";
  static final int FLOW_WINDOW = 1 << 16;
  /** The most threads named; a journal of millions of threads would otherwise hold them all. */
  static final int THREADS_NAMED = 1 << 16;
  /** A stream track's name before its number: its slices are host time. */
  static final String STREAM_TRACK_PREFIX = "host: stream ";
  /** What the trace's slices show, in its {@code otherData}. */
  static final String HOST_TIME_NOTE = "every slice of the application threads and the agent streams is host"
      + " time: when the application's thread made the call and how long it took there; stream tracks place the"
      + " same host times on the stream the agent chose for the call, they are not GPU execution; only the"
      + " tracks of 'device, sampled windows' are GPU time";

  private final Writer out;
  private final Set<Long> threadsNamed = new HashSet<>();
  private final Set<Integer> streamsNamed = new HashSet<>();
  private final Set<Integer> deviceTracksNamed = new HashSet<>();
  private final long[] windowSeq = new long[FLOW_WINDOW];
  private final int[] windowStream = new int[FLOW_WINDOW];
  private final double[] windowTs = new double[FLOW_WINDOW];
  private final StringBuilder event = new StringBuilder(256);
  private final long origin;
  private boolean first = true;
  private long flows;
  private long replays;
  /** Per context, the replayed window whose calls are being read. */
  private final Map<Long, Replay> openReplays = new LinkedHashMap<>();

  /** One replayed window: its span on its stream and its launches' stream events, not yet written. */
  private static final class Replay {
    final long context;
    final long window;
    final int stream;
    final boolean captured;
    final long firstSeq;
    long lastSeq;
    double start = Double.MAX_VALUE;
    double end = -Double.MAX_VALUE;
    int launches;
    int mergedLaunches;
    final StringBuilder children = new StringBuilder();

    Replay(CallRecord r) {
      context = r.context;
      window = r.graphWindow;
      stream = r.stream;
      captured = r.graphCaptured;
      firstSeq = r.seq;
    }
  }

  /** @param origin the time zero of the trace, nanoseconds since the epoch */
  public ChromeTrace(Writer out, long origin) throws IOException {
    this.out = out;
    this.origin = origin;
    java.util.Arrays.fill(windowSeq, -1);
    out.write("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"timing\":");
    StringBuilder note = new StringBuilder();
    JsonStrings.appendQuoted(note, HOST_TIME_NOTE);
    out.append(note);
    out.write("},\"traceEvents\":[\n");
    metadata("process_name", THREADS_PID, 0, "application threads (host time)");
    metadata("process_sort_index", THREADS_PID, 0, null);
    metadata("process_name", STREAMS_PID, 0, "agent streams (host time, not GPU time)");
    metadata("process_sort_index", STREAMS_PID, 0, null);
  }

  /** A sampled window's device time: a GPU slice on its stream's device track. */
  private void deviceSlice(CallRecord r) throws IOException {
    if (deviceTracksNamed.isEmpty()) {
      metadata("process_name", DEVICE_PID, 0, "device, sampled windows (GPU time)");
      metadata("process_sort_index", DEVICE_PID, 0, null);
    }
    if (deviceTracksNamed.add(r.stream)) {
      metadata("thread_name", DEVICE_PID, r.stream, DEVICE_TRACK_PREFIX + r.stream);
    }
    StringBuilder b = begin();
    b.append("{\"name\":");
    JsonStrings.appendQuoted(b, "window #" + r.graphWindow + " " + (r.name.equals(CallKind.WINDOW_IN_ORDER) ? "in order" : "as graph"));
    b.append(",\"cat\":\"device\",\"ph\":\"X\",\"ts\":").append(micros((r.startNanos - origin) / 1000.0))
        .append(",\"dur\":").append(micros(Math.max(0, r.durationNanos) / 1000.0))
        .append(",\"pid\":").append(DEVICE_PID).append(",\"tid\":").append(r.stream)
        .append(",\"args\":{\"clock\":\"device\",\"placed\":\"at the host's issue\",\"seq\":").append(r.seq)
        .append(",\"window\":").append(r.graphWindow).append(",\"way\":");
    JsonStrings.appendQuoted(b, r.name);
    b.append(",\"hostUs\":").append(micros(r.bytes / 1000.0)).append(",\"verdict\":");
    JsonStrings.appendQuoted(b, r.kernel.isEmpty() ? "not yet" : r.kernel);
    b.append(",\"shape\":\"0x").append(Long.toHexString(r.appStream)).append("\"}}");
    end(b);
  }

  public void add(CallRecord r) throws IOException {
    if (r.kind == CallKind.WINDOW_TIME) {
      deviceSlice(r);
      return;
    }
    double ts = (r.startNanos - origin) / 1000.0;
    double dur = Math.max(0, r.durationNanos) / 1000.0;
    if (threadsNamed.size() < THREADS_NAMED && threadsNamed.add(r.threadId)) {
      metadata("thread_name", THREADS_PID, r.threadId,
          (r.threadName.isEmpty() ? "thread" : r.threadName) + " (" + r.threadId + ")");
    }
    end(complete(r, THREADS_PID, r.threadId, ts, dur));
    if (r.stream >= 0) {
      if (streamsNamed.add(r.stream)) {
        metadata("thread_name", STREAMS_PID, r.stream, STREAM_TRACK_PREFIX + r.stream);
      }
      if (r.graphWindow > 0) {
        Replay replay = replayOf(r);
        replay.start = Math.min(replay.start, ts);
        replay.end = Math.max(replay.end, ts + dur);
        replay.launches++;
        replay.mergedLaunches += r.firstMerged ? 1 : 0;
        replay.lastSeq = r.seq;
        // Written after the replay's slice, so that a viewer nests them even at equal start times.
        replay.children.append(complete(r, STREAMS_PID, r.stream, ts, dur));
      } else {
        end(complete(r, STREAMS_PID, r.stream, ts, dur));
      }
      for (int i = 0; i < r.predecessorCount; i++) {
        long p = r.predecessors[i];
        int slot = (int) (p & (FLOW_WINDOW - 1));
        if (windowSeq[slot] == p) {
          flow(p, r.seq, windowStream[slot], windowTs[slot], r.stream, ts);
        }
      }
      int slot = (int) (r.seq & (FLOW_WINDOW - 1));
      windowSeq[slot] = r.seq;
      windowStream[slot] = r.stream;
      windowTs[slot] = ts;
    }
  }

  /** Number of flow arrows written. */
  public long flows() {
    return flows;
  }

  /** Number of graph replay slices written (complete once {@link #close}d). */
  public long replays() {
    return replays;
  }

  /**
   * The open replay the call belongs to. A replay's calls are journaled one after another, so a
   * new window number of the context means the previous replay is complete.
   */
  private Replay replayOf(CallRecord r) throws IOException {
    Replay open = openReplays.get(r.context);
    if (open != null && open.window == r.graphWindow && open.stream == r.stream) {
      return open;
    }
    if (open != null) {
      writeReplay(open);
    }
    Replay replay = new Replay(r);
    openReplays.put(r.context, replay);
    return replay;
  }

  private void writeReplay(Replay replay) throws IOException {
    replays++;
    StringBuilder b = begin();
    b.append("{\"name\":");
    JsonStrings.appendQuoted(b, "graph replay #" + replay.window + " (" + replay.launches
        + (replay.launches == 1 ? " launch)" : " launches)"));
    b.append(",\"cat\":\"graph\",\"ph\":\"X\",\"ts\":").append(micros(replay.start))
        .append(",\"dur\":").append(micros(replay.end - replay.start))
        .append(",\"pid\":").append(STREAMS_PID).append(",\"tid\":").append(replay.stream)
        .append(",\"args\":{\"clock\":\"host\",\"window\":").append(replay.window)
        .append(",\"context\":\"0x").append(Long.toHexString(replay.context))
        .append("\",\"launches\":").append(replay.launches)
        .append(",\"captured\":").append(replay.captured)
        .append(",\"mergedLaunches\":").append(replay.mergedLaunches)
        .append(",\"firstSeq\":").append(replay.firstSeq)
        .append(",\"lastSeq\":").append(replay.lastSeq).append("}}");
    end(b);
    out.append(replay.children);
  }

  /** The call's complete event, in {@link #begin}'s buffer, to be written or kept. */
  private StringBuilder complete(CallRecord r, int pid, long tid, double ts, double dur) {
    StringBuilder b = begin();
    b.append("{\"name\":");
    JsonStrings.appendQuoted(b, r.kernel.isEmpty() ? r.name : r.kernel);
    b.append(",\"cat\":");
    JsonStrings.appendQuoted(b, r.kind.name().toLowerCase(Locale.ROOT));
    b.append(",\"ph\":\"X\",\"ts\":").append(micros(ts)).append(",\"dur\":").append(micros(dur));
    b.append(",\"pid\":").append(pid).append(",\"tid\":").append(tid);
    b.append(",\"args\":{");
    if (pid == STREAMS_PID) {
      b.append("\"clock\":\"host\",");
    }
    b.append("\"seq\":").append(r.seq).append(",\"call\":");
    JsonStrings.appendQuoted(b, r.name);
    b.append(",\"stream\":").append(r.stream).append(",\"priority\":\"").append(r.priority.label()).append('"')
        .append(",\"result\":").append(r.result);
    if (r.bytes != 0) {
      b.append(",\"bytes\":").append(r.bytes);
    }
    if (r.accessCount > 0) {
      b.append(",\"accesses\":\"");
      for (int i = 0; i < r.accessCount; i++) {
        if (i > 0) {
          b.append(' ');
        }
        TailFormat.appendAccess(b, r, i);
      }
      b.append('"');
    }
    if (r.predecessorCount > 0) {
      TailFormat.appendPredecessors(b.append(",\"after\":["), r).append(']');
    }
    if (r.graphWindow > 0) {
      b.append(",\"graphWindow\":").append(r.graphWindow).append(",\"graphCaptured\":").append(r.graphCaptured);
      if (r.merged) {
        b.append(",\"merged\":true");
      }
    }
    b.append("}}");
    return b;
  }

  private void flow(long fromSeq, long toSeq, int fromStream, double fromTs, int toStream, double toTs)
      throws IOException {
    long id = ++flows;
    StringBuilder b = begin();
    b.append("{\"name\":\"wait\",\"cat\":\"dependency\",\"ph\":\"s\",\"id\":").append(id)
        .append(",\"ts\":").append(micros(fromTs)).append(",\"pid\":").append(STREAMS_PID)
        .append(",\"tid\":").append(fromStream).append(",\"args\":{\"from\":").append(fromSeq).append("}}");
    end(b);
    b = begin();
    b.append("{\"name\":\"wait\",\"cat\":\"dependency\",\"ph\":\"f\",\"bp\":\"e\",\"id\":").append(id)
        .append(",\"ts\":").append(micros(toTs)).append(",\"pid\":").append(STREAMS_PID)
        .append(",\"tid\":").append(toStream).append(",\"args\":{\"to\":").append(toSeq).append("}}");
    end(b);
  }

  private void metadata(String name, int pid, long tid, String value) throws IOException {
    StringBuilder b = begin();
    b.append("{\"name\":\"").append(name).append("\",\"ph\":\"M\",\"pid\":").append(pid)
        .append(",\"tid\":").append(tid).append(",\"args\":{");
    if (value == null) {
      b.append("\"sort_index\":").append(pid);
    } else {
      b.append("\"name\":");
      JsonStrings.appendQuoted(b, value);
    }
    b.append("}}");
    end(b);
  }

  private StringBuilder begin() {
    event.setLength(0);
    if (!first) {
      event.append(",\n");
    }
    first = false;
    return event;
  }

  private void end(CharSequence b) throws IOException {
    out.append(b);
  }

  private static String micros(double us) {
    return String.format(Locale.ROOT, "%.3f", us);
  }

  @Override
  public void close() throws IOException {
    for (Replay replay : openReplays.values()) {
      writeReplay(replay);
    }
    openReplays.clear();
    out.write("\n]}\n");
    out.flush();
  }
}
