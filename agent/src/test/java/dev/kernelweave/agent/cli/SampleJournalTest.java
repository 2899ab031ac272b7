package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.JournalReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import net.openhft.chronicle.bytes.Bytes;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The sample journal shipped in {@code samples/journal} holds exactly what {@link SampleJournal}
 * generates. To regenerate it, from the repository root:
 *
 * <pre>
 * mvn -q -B -o -pl scheduler,agent -am test -Dtest=SampleJournalTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dkernelweave.sample.out=$PWD/samples/journal
 * </pre>
 */
class SampleJournalTest {

  static final Path SHIPPED = Path.of("..", "samples", "journal");

  @Test
  @EnabledIfSystemProperty(named = "kernelweave.sample.out", matches = ".+")
  void regenerate() throws Exception {
    SampleJournal.write(Path.of(System.getProperty("kernelweave.sample.out")));
  }

  @Test
  void theShippedSampleHoldsWhatTheGeneratorWrites() throws Exception {
    List<CallRecord> expected = SampleJournal.calls();
    int read = 0;
    try (JournalReader reader = JournalReader.open(SHIPPED)) {
      CallRecord r = new CallRecord();
      while (reader.next(r)) {
        assertEquals(encoded(expected.get(read)), encoded(r), "call " + read);
        read++;
      }
    }
    assertEquals(expected.size(), read);
  }

  /** A call's journaled fields, as the journal encodes them. */
  static String encoded(CallRecord r) {
    Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);
    try {
      r.writeMarshallable(bytes);
      return HexFormat.of().formatHex(bytes.toByteArray());
    } finally {
      bytes.releaseLast();
    }
  }

  @Test
  void theShippedSampleIsSmall() throws Exception {
    long total;
    try (Stream<Path> files = Files.list(SHIPPED)) {
      total = files.mapToLong(p -> p.toFile().length()).sum();
    }
    assertTrue(total < 1 << 20, total + " bytes");
  }
}
