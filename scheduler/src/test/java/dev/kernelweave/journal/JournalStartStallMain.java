package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Measures how long a program making calls from its first moment waits for the journal while
 * Chronicle starts: a fresh JVM opens a journal as the agent does (Chronicle started in the
 * background first) and appends {@code N} calls in bursts of 1,024 (faster than the writer drains,
 * as a launch-bound program calls), then prints the longest
 * single append, when it came, the full-ring waits and the files written. Not a test: run it by hand
 * in a fresh JVM, with the class path of the scheduler's tests and the --add-opens flags of the
 * agent's manifest, or against the agent's jar (its Chronicle is shaded).
 *
 * <pre>java ... dev.kernelweave.journal.JournalStartStallMain 1000000</pre>
 */
public final class JournalStartStallMain {
  private JournalStartStallMain() {}

  public static void main(String[] args) throws Exception {
    LaunchJournals.startChronicleInBackground();
    Path dir = Files.createTempDirectory("kernelweave-start-stall");
    long t0 = System.nanoTime();
    LaunchJournal journal = LaunchJournals.open(dir, System.err::println);
    CallRecord call = new CallRecord();
    call.name = "cuLaunchKernel";
    call.kernel = "k";
    call.threadName = "main";
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    long worst = 0;
    long worstAt = 0;
    for (int i = 0; i < n; i++) {
      call.seq = i;
      long start = System.nanoTime();
      journal.append(call);
      long took = System.nanoTime() - start;
      if (took > worst) {
        worst = took;
        worstAt = start - t0;
      }
      if ((i & 1023) == 0) {
        long until = System.nanoTime() + 20_000; // 20 us between bursts
        while (System.nanoTime() < until) {
          Thread.onSpinWait();
        }
      }
    }
    long appended = System.nanoTime();
    journal.close();
    long closed = System.nanoTime();
    StringBuilder files = new StringBuilder();
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(p -> files.append(' ').append(p.getFileName()));
    }
    System.out.printf("%d calls in %d ms; longest append %.1f ms, %d ms after the journal opened; full-ring"
        + " waits %d; close %d ms; files:%s%n", n, (appended - t0) / 1_000_000, worst / 1e6, worstAt / 1_000_000,
        journal instanceof ChronicleLaunchJournal c ? c.fullWaits() : -1, (closed - appended) / 1_000_000, files);
  }
}
