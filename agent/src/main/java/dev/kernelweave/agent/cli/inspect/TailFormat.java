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
 */
public final class TailFormat {

  private final DateTimeFormatter time;
  private final StringBuilder line = new StringBuilder(160);

  public TailFormat(ZoneId zone) {
    this.time = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS").withZone(zone);
  }

  public String format(CallRecord r) {
    StringBuilder b = line;
    b.setLength(0);
    b.append(r.seq).append(' ');
    time.formatTo(Stats.instant(r.startNanos), b);
    b.append(' ').append(r.threadName.isEmpty() ? "thread-" + r.threadId : r.threadName);
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
      b.append(" #").append(r.accessId[i]).append("+0x").append(Long.toHexString(r.accessOffset[i]))
          .append('[').append(r.accessSize[i]).append("] ").append(r.accessMode(i).symbol());
    }
    if (r.touchesUnknownMemory) {
      b.append(" unknown-memory");
    }
    if (r.predecessorCount > 0) {
      b.append(" after ");
      for (int i = 0; i < r.predecessorCount; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append(r.predecessors[i]);
      }
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
    b.append(r.result == CallRecord.RESULT_THREW ? " =threw" : " =" + r.result);
    return b.toString();
  }
}
