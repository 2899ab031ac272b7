package dev.kernelweave.interceptor.observe;

import dev.kernelweave.call.CallRecord;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;

/**
 * Commits {@link LaunchEvent} and {@link HostWaitEvent} for a finished call while a JFR recording
 * wants them. The only class that links {@code jdk.jfr}, so that a runtime without that module
 * fails here alone (see {@link CallEvents}).
 *
 * <p>Until Flight Recorder starts, a call costs one volatile read and creates nothing: asking for
 * an {@link EventType} earlier would start JFR's machinery (half a second). Once it has started,
 * each event type's enabled flag is read before any event object is made.
 *
 * <p>Thread-safe: the event types are looked up once (a racing thread may look them up again,
 * harmlessly); each event object belongs to the thread that commits it.
 */
final class FlightEvents {

  /**
   * A cache of the JVM's event types, the same for every state and every copy of this class: looked
   * up once Flight Recorder has started, never changed after.
   */
  private static volatile EventType launch;
  private static volatile EventType hostWait;

  private FlightEvents() {}

  static void commit(CallRecord r) {
    if (!FlightRecorder.isInitialized()) {
      return;
    }
    EventType l = launch;
    if (l == null) {
      hostWait = EventType.getEventType(HostWaitEvent.class);
      launch = l = EventType.getEventType(LaunchEvent.class);
    }
    if (r.kind.isDeviceWork() && l.isEnabled()) {
      commitLaunch(r);
    }
    if (r.hostWaited && hostWait.isEnabled()) {
      commitHostWait(r);
    }
  }

  private static void commitLaunch(CallRecord r) {
    LaunchEvent e = new LaunchEvent();
    e.seq = r.seq;
    e.call = r.name;
    e.kernel = r.kernel;
    if (r.gridX > 0) {
      e.grid = r.gridX + "," + r.gridY + "," + r.gridZ;
      e.block = r.blockX + "," + r.blockY + "," + r.blockZ;
    }
    e.bytes = r.bytes;
    e.agentStream = r.stream;
    e.applicationStream = r.appStream;
    e.crossStreamWaits = r.predecessorCount;
    e.eventRecorded = r.eventRecorded;
    e.hostWaited = r.hostWaited;
    e.barrier = r.barrier;
    e.callDuration = r.durationNanos;
    e.result = r.result;
    e.commit();
  }

  private static void commitHostWait(CallRecord r) {
    HostWaitEvent e = new HostWaitEvent();
    e.seq = r.seq;
    e.call = r.name;
    e.buffers = buffers(r);
    e.allocation = r.accessCount > 0 ? r.accessId[0] : -1;
    e.narrowed = r.hostWaitNarrowed;
    e.barrier = r.barrier;
    e.blocked = r.durationNanos;
    e.commit();
  }

  /** The accesses in {@code inspect tail}'s notation: {@code #id+0xoffset[size] mode}. */
  static String buffers(CallRecord r) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < r.accessCount; i++) {
      if (i > 0) {
        b.append(' ');
      }
      b.append('#').append(r.accessId[i]).append("+0x").append(Long.toHexString(r.accessOffset[i]))
          .append('[').append(r.accessSize[i]).append("] ").append(r.accessMode(i).symbol());
    }
    return b.toString();
  }
}
