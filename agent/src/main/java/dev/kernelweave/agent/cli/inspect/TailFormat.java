package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * {@code inspect tail}: one line per call, for example
 *
 * <pre>
 * 17 10:00:00.000254 main cuLaunchKernel saxpy grid(64,1,1) block(256,1,1) s1 #1+0x0[262144] R #3+0x0[262144] W after 12 =0
 * </pre>
 *
 * seq, local time, thread, call, kernel and launch dimensions, the agent's stream ({@code s-} when
 * none), bytes for copies and memsets, each access as {@code #id+offset[size] mode}, the
 * cross-stream predecessors, the scheduler's other decisions (with {@code graph#N} for a launch
 * issued inside replayed window N, {@code graph#N(captured)} when its graph was captured then), and
 * the result.
 *
 * <p>Cheap per call, for journals of millions: {@link #formatTo} appends to a reused builder, and
 * the local time's {@code HH:mm:ss} is formatted once per second, the microseconds by hand.
 */
public final class TailFormat {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** Appends access {@code i} of {@code r} as {@code #id+0xoffset[size] mode}. */
  static StringBuilder appendAccess(StringBuilder b, CallRecord r, int i) {
    return b.append('#').append(r.accessId[i]).append("+0x").append(Long.toHexString(r.accessOffset[i]))
        .append('[').append(r.accessSize[i]).append("] ").append(r.accessMode(i).symbol());
  }

  /** Appends the cross-stream predecessors of {@code r}, separated by commas. */
  static StringBuilder appendPredecessors(StringBuilder b, CallRecord r) {
    for (int i = 0; i < r.predecessorCount; i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(r.predecessors[i]);
    }
    return b;
  }

  private final DateTimeFormatter seconds;
  private final StringBuilder line = new StringBuilder(160);
  private long cachedSecond = Long.MIN_VALUE;
  private String cachedTime = "";

  public TailFormat(ZoneId zone) {
    this.seconds = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(zone);
  }

  public String format(CallRecord r) {
    StringBuilder b = line;
    b.setLength(0);
    formatTo(r, b);
    return b.toString();
  }

  /** Appends the call's line (without a line break) to {@code b}. */
  public void formatTo(CallRecord r, StringBuilder b) {
    b.append(r.seq).append(' ');
    long second = Math.floorDiv(r.startNanos, NANOS_PER_SECOND);
    if (second != cachedSecond) {
      cachedSecond = second;
      cachedTime = seconds.format(JournalStats.instant(second * NANOS_PER_SECOND));
    }
    int micros = (int) (Math.floorMod(r.startNanos, NANOS_PER_SECOND) / 1000);
    b.append(cachedTime).append('.');
    for (int digit = 100_000; digit > 1 && micros < digit; digit /= 10) {
      b.append('0');
    }
    b.append(micros);
    b.append(' ');
    if (r.threadName.isEmpty()) {
      b.append("thread-").append(r.threadId);
    } else {
      b.append(r.threadName);
    }
    b.append(' ').append(r.name.isEmpty() ? r.kind.name().toLowerCase(java.util.Locale.ROOT) : r.name);
    if (r.kind == CallKind.LAUNCH) {
      b.append(' ').append(r.kernel.isEmpty() ? "?" : r.kernel);
      b.append(" grid(").append(r.gridX).append(',').append(r.gridY).append(',').append(r.gridZ).append(')');
      b.append(" block(").append(r.blockX).append(',').append(r.blockY).append(',').append(r.blockZ).append(')');
      if (r.sharedMemBytes != 0) {
        b.append(" shared=").append(r.sharedMemBytes);
      }
    }
    if (r.stream >= 0) {
      b.append(" s").append(r.stream);
    } else {
      b.append(" s-");
    }
    if (r.bytes != 0) {
      b.append(' ').append(r.bytes).append('B');
    }
    for (int i = 0; i < r.accessCount; i++) {
      appendAccess(b.append(' '), r, i);
    }
    if (r.touchesUnknownMemory) {
      b.append(" unknown-memory");
    }
    if (r.predecessorCount > 0) {
      appendPredecessors(b.append(" after "), r);
    }
    if (r.eventRecorded) {
      b.append(" +event");
    }
    if (r.hostWaited) {
      b.append(r.hostWaitNarrowed ? " host-wait(narrowed)" : " host-wait");
    }
    if (r.barrier) {
      b.append(" barrier");
    }
    if (r.graphWindow > 0) {
      b.append(" graph#").append(r.graphWindow).append(r.graphCaptured ? "(captured)" : "");
    }
    if (r.result == CallRecord.RESULT_THREW) {
      b.append(" =threw");
    } else {
      b.append(" =").append(r.result);
    }
  }
}
