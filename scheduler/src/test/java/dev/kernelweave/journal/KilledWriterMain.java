package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The child JVM of {@link JournalReaderTest#readsEveryCompleteRecordOfAWriterKilledMidStream}:
 * journals {@code args[1]} calls, says so on stdout, then keeps journaling until it is killed.
 */
public final class KilledWriterMain {
  private KilledWriterMain() {}

  public static void main(String[] args) throws Exception {
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(Path.of(args[0])).open();
    long announced = Long.parseLong(args[1]);
    CallRecord call = new CallRecord();
    long seq = 0;
    for (; seq < announced; seq++) {
      journal.append(TestCalls.fill(call, seq));
    }
    if (!journal.awaitWritten(60, TimeUnit.SECONDS)) {
      System.out.println("stuck");
      System.exit(1);
    }
    System.out.println("written " + seq);
    System.out.flush();
    while (true) {
      journal.append(TestCalls.fill(call, seq++));
    }
  }
}
