package dev.kernelweave.agent.cli.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** stats' tables stay bounded on a journal of more threads and kernels than it keeps apart. */
class JournalStatsBoundsTest {

  private static List<String> section(String printed, String title) {
    List<String> lines = printed.lines().toList();
    int start = 0;
    while (!lines.get(start).startsWith(title)) {
      start++;
    }
    int end = start + 1;
    while (end < lines.size() && !lines.get(end).isEmpty()) {
      end++;
    }
    return lines.subList(start + 1, end);
  }

  @Test
  void threadsAndKernelsPastTheBoundAreOneOtherRowAndStillCounted() {
    JournalStats stats = new JournalStats();
    CallRecord r = new CallRecord();
    int threads = TopTable.TRACKED + 1000;
    for (int i = 0; i < threads; i++) {
      r.reset();
      r.seq = i;
      r.kind = CallKind.LAUNCH;
      r.kernel = "k" + i;
      r.threadId = i;
      r.threadName = "t" + i;
      r.durationNanos = 1000;
      stats.add(r);
      if (i == 7) {
        stats.add(r); // the busiest thread: first
      }
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    stats.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), "j", ZoneOffset.UTC);
    String printed = bytes.toString(StandardCharsets.UTF_8);
    List<String> rows = section(printed, "threads");
    assertEquals(TopTable.SHOWN + 1, rows.size(), printed);
    assertTrue(rows.get(0).trim().startsWith("t7 (7)"), rows.get(0));
    String other = rows.get(rows.size() - 1).trim().replaceAll(" +", " ");
    long rest = threads + 1 - 2 - (TopTable.SHOWN - 1);
    assertTrue(other.startsWith("(more than " + (TopTable.TRACKED - TopTable.SHOWN) + " other threads) " + rest + " "),
        other);
    assertEquals(TopTable.SHOWN + 1, section(printed, "kernels").size(), printed);
  }

  @Test
  void callsAreCountedPerPriorityClass() {
    JournalStats stats = new JournalStats();
    CallRecord r = new CallRecord();
    PriorityClass[] classes = {PriorityClass.HIGH, PriorityClass.HIGH, PriorityClass.HIGH, PriorityClass.LOW,
        PriorityClass.NORMAL};
    for (int i = 0; i < classes.length; i++) {
      r.reset();
      r.seq = i;
      r.kind = CallKind.LAUNCH;
      r.priority = classes[i];
      stats.add(r);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    stats.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), "j", ZoneOffset.UTC);
    String printed = bytes.toString(StandardCharsets.UTF_8);
    List<String> rows = section(printed, "calls by priority").stream().map(l -> l.trim().replaceAll(" +", " ")).toList();
    assertEquals(List.of("high 3", "normal 1", "low 1"), rows, printed);
  }
}
