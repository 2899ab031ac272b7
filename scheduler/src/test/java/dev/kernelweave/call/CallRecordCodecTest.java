package dev.kernelweave.call;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.io.IORuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CallRecordCodecTest {

  private final Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);

  @AfterEach
  void release() {
    bytes.releaseLast();
  }

  /**
   * Writes the record and reads it back twice, through Chronicle and from a plain buffer (as the
   * journal reader does): both readers must take exactly the bytes written and agree on every field.
   * The plain writer (the journal's spill file) must write exactly Chronicle's bytes.
   */
  private CallRecord roundTrip(CallRecord written, CallRecord into) {
    bytes.clear();
    written.writeMarshallable(bytes);
    byte[] chronicle = bytes.toByteArray();
    ByteBuffer plainOut = ByteBuffer.allocate(chronicle.length + 64);
    written.writeTo(plainOut);
    assertArrayEquals(chronicle, java.util.Arrays.copyOf(plainOut.array(), plainOut.position()),
        "the plain writer writes Chronicle's bytes");
    ByteBuffer plain = ByteBuffer.wrap(bytes.toByteArray());
    into.readMarshallable(bytes);
    assertEquals(0, bytes.readRemaining(), "the reader consumed exactly what the writer wrote");
    CallRecord fromBuffer = new CallRecord();
    fromBuffer.readFrom(plain);
    assertEquals(0, plain.remaining(), "the plain reader consumed exactly what the writer wrote");
    TestCalls.assertSameCall(into, fromBuffer);
    assertEquals(into.graphWindow, fromBuffer.graphWindow);
    assertEquals(into.graphCaptured, fromBuffer.graphCaptured);
    assertEquals(into.priority, fromBuffer.priority);
    return into;
  }

  @Test
  void thePlainReaderDecodesStopBitNumbersAsChronicleWritesThem() {
    CallRecord written = TestCalls.fill(new CallRecord(), 3);
    CallRecord into = new CallRecord();
    // graphWindow is the record's one stop-bit long: every length of encoding, and negatives.
    for (long window : new long[] {0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 1L << 35, 1L << 56, (1L << 62) + 5,
        Long.MAX_VALUE, -1, -128, Long.MIN_VALUE}) {
      written.graphWindow = window;
      assertEquals(window, roundTrip(written, into).graphWindow);
    }
  }

  @Test
  void thePlainWriterSaysWhenARecordDoesNotFit() {
    CallRecord written = TestCalls.fill(new CallRecord(), 3);
    bytes.clear();
    written.writeMarshallable(bytes);
    int size = (int) bytes.readRemaining();
    assertThrows(java.nio.BufferOverflowException.class, () -> written.writeTo(ByteBuffer.allocate(size - 1)));
    ByteBuffer exact = ByteBuffer.allocate(size);
    written.writeTo(exact);
    assertFalse(exact.hasRemaining());
  }

  @Test
  void roundTripsEveryJournaledField() {
    CallRecord written = new CallRecord();
    for (long seq = 0; seq < 500; seq++) {
      TestCalls.fill(written, seq);
      TestCalls.assertSameCall(written, roundTrip(written, new CallRecord()));
    }
  }

  @Test
  void copyFromCopiesEveryFieldIntoAFreshRecordAndIntoOneThatHeldMore() {
    CallRecord written = new CallRecord();
    CallRecord reused = new CallRecord();
    for (long seq = 0; seq < 500; seq++) {
      TestCalls.fill(written, seq);
      written.function = 0x1234_0000L + seq;
      written.touchesHostMemory = seq % 5 == 0;
      for (CallRecord into : new CallRecord[] {new CallRecord(), reused}) {
        into.copyFrom(written);
        TestCalls.assertSameCall(written, into);
        assertEquals(written.function, into.function);
        assertEquals(written.touchesHostMemory, into.touchesHostMemory);
        for (int i = 0; i < written.accessCount; i++) {
          assertEquals(written.accessSlot[i], into.accessSlot[i], "slot of access " + i);
        }
      }
      // The next source (seq + 1 % 11 parameters, % 9 accesses, % 7 predecessors) often holds fewer.
      TestCalls.fill(reused, seq + 5);
    }
  }

  @Test
  void roundTripsExtremeValuesAndEveryFlagAlone() {
    CallRecord written = new CallRecord();
    written.seq = Long.MAX_VALUE;
    written.startNanos = Long.MIN_VALUE;
    written.durationNanos = -1;
    written.threadId = Long.MAX_VALUE;
    written.result = CallRecord.RESULT_THREW;
    written.appStream = -1L;
    written.context = 0xFFFF_FFFF_FFFF_FFFFL;
    written.kind = CallKind.values()[CallKind.values().length - 1];
    written.bytes = Long.MAX_VALUE;
    written.addAccess(Integer.MAX_VALUE, 3, -1L, Long.MAX_VALUE, Long.MIN_VALUE, AccessMode.READ_WRITE);
    written.addPredecessor(Long.MIN_VALUE);
    TestCalls.assertSameCall(written, roundTrip(written, new CallRecord()));
    for (int flag = 0; flag < 5; flag++) {
      written.touchesUnknownMemory = flag == 0;
      written.eventRecorded = flag == 1;
      written.hostWaited = flag == 2;
      written.hostWaitNarrowed = flag == 3;
      written.barrier = flag == 4;
      TestCalls.assertSameCall(written, roundTrip(written, new CallRecord()));
    }
  }

  @Test
  void roundTripsTheGraphWindowAndWhetherItWasCaptured() {
    CallRecord written = TestCalls.fill(new CallRecord(), 7);
    CallRecord into = new CallRecord();
    for (long window : new long[] {0, 1, 127, 128, 1L << 40, Long.MAX_VALUE}) {
      for (boolean captured : new boolean[] {false, true}) {
        written.graphWindow = window;
        written.graphCaptured = captured;
        roundTrip(written, into);
        assertEquals(window, into.graphWindow);
        assertEquals(captured, into.graphCaptured);
        TestCalls.assertSameCall(written, into);
      }
    }
    written.graphCaptured = true;
    written.barrier = true;
    written.hostWaited = true;
    roundTrip(written, into);
    assertTrue(into.graphCaptured && into.barrier && into.hostWaited, "the flag shares its byte");
    written.graphCaptured = false;
    roundTrip(written, into);
    assertFalse(into.graphCaptured);
    assertTrue(into.barrier && into.hostWaited);
  }

  @Test
  void roundTripsWhetherALaunchRanMergedAndWhetherItWasTheFirst() {
    CallRecord written = TestCalls.fill(new CallRecord(), 8);
    CallRecord into = new CallRecord();
    written.graphCaptured = true;
    for (boolean merged : new boolean[] {false, true}) {
      for (boolean first : new boolean[] {false, true}) {
        written.merged = merged;
        written.firstMerged = first;
        roundTrip(written, into);
        assertEquals(merged, into.merged);
        assertEquals(first, into.firstMerged);
        assertTrue(into.graphCaptured, "the flags share their byte");
        TestCalls.assertSameCall(written, into);
      }
    }
  }

  @Test
  void readsAVersionOneRecordWithoutAGraphWindow() {
    CallRecord written = TestCalls.fill(new CallRecord(), 9);
    written.graphWindow = 0;
    written.graphCaptured = false;
    written.priority = PriorityClass.NORMAL;
    bytes.clear();
    written.writeMarshallable(bytes);
    // Version 1 ended at the flags byte: drop the trailing stop-bit window (one byte for 0) and class.
    bytes.writePosition(bytes.writePosition() - 2);
    bytes.writeByte(0, (byte) 1);
    CallRecord into = new CallRecord();
    into.graphWindow = 42;
    into.graphCaptured = true;
    into.readMarshallable(bytes);
    assertEquals(0, bytes.readRemaining(), "the reader stops where version 1 ended");
    assertEquals(0, into.graphWindow);
    assertFalse(into.graphCaptured);
    TestCalls.assertSameCall(written, into);
  }

  @Test
  void readsAVersionTwoRecordAsNormalPriority() {
    CallRecord written = TestCalls.fill(new CallRecord(), 10);
    written.priority = PriorityClass.NORMAL;
    bytes.clear();
    written.writeMarshallable(bytes);
    // Version 2 ended at the graph window: drop the trailing class byte.
    bytes.writePosition(bytes.writePosition() - 1);
    bytes.writeByte(0, (byte) 2);
    CallRecord into = new CallRecord();
    into.priority = PriorityClass.HIGH;
    into.readMarshallable(bytes);
    assertEquals(0, bytes.readRemaining(), "the reader stops where version 2 ended");
    assertEquals(PriorityClass.NORMAL, into.priority);
    TestCalls.assertSameCall(written, into);
  }

  @Test
  void writesAndReadsEachPriorityClass() {
    CallRecord into = new CallRecord();
    for (PriorityClass c : PriorityClass.values()) {
      CallRecord written = TestCalls.fill(new CallRecord(), 11);
      written.priority = c;
      roundTrip(written, into);
      assertEquals(c, into.priority);
    }
  }

  @Test
  void doesNotJournalTheAllocationSlot() {
    CallRecord written = new CallRecord();
    written.addAccess(7, 42, 0x1000, 0, 64, AccessMode.WRITE);
    CallRecord read = roundTrip(written, new CallRecord());
    assertEquals(7, read.accessId[0]);
    assertEquals(-1, read.accessSlot[0], "slots mean nothing outside the process");
  }

  @Test
  void readingReusesTheArraysOnceGrown() {
    long biggest = 0;
    while (biggest % 11 != 10 || biggest % 9 != 8 || biggest % 7 != 6) {
      biggest++;
    }
    CallRecord big = TestCalls.fill(new CallRecord(), biggest);
    assertTrue(big.accessCount > 4 && big.paramCount > 8 && big.predecessorCount > 4,
        "the first record must grow every array");
    CallRecord into = roundTrip(big, new CallRecord());
    int[] offsets = into.paramOffsets;
    byte[] params = into.paramBytes;
    int[] ids = into.accessId;
    long[] bases = into.accessBase;
    byte[] modes = into.accessMode;
    long[] predecessors = into.predecessors;
    String kernel = into.kernel;
    for (long seq = 0; seq < 200; seq++) {
      CallRecord written = TestCalls.fill(new CallRecord(), seq);
      TestCalls.assertSameCall(written, roundTrip(written, into));
      TestCalls.assertSameCall(big, roundTrip(big, into));
      assertSame(offsets, into.paramOffsets);
      assertSame(params, into.paramBytes);
      assertSame(ids, into.accessId);
      assertSame(bases, into.accessBase);
      assertSame(modes, into.accessMode);
      assertSame(predecessors, into.predecessors);
      assertSame(kernel, into.kernel, "names read back are interned, not rebuilt");
    }
  }

  @Test
  void writingAllocatesNothingPerRecord() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    CallRecord[] calls = new CallRecord[64];
    for (int i = 0; i < calls.length; i++) {
      calls[i] = TestCalls.fill(new CallRecord(), i);
    }
    for (int i = 0; i < 50_000; i++) {
      bytes.clear();
      calls[i & 63].writeMarshallable(bytes);
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    int records = 100_000;
    for (int i = 0; i < records; i++) {
      bytes.clear();
      calls[i & 63].writeMarshallable(bytes);
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < records, allocated + " bytes allocated for " + records + " records");
  }

  @Test
  void refusesAnotherFormatVersion() {
    bytes.clear();
    new CallRecord().writeMarshallable(bytes);
    bytes.writeByte(0, (byte) (CallRecord.FORMAT_VERSION + 1));
    IORuntimeException e = assertThrows(IORuntimeException.class, () -> new CallRecord().readMarshallable(bytes));
    assertTrue(e.getMessage().contains("format " + (CallRecord.FORMAT_VERSION + 1)), e.getMessage());
  }

  @Test
  void equalityIsIdentity() {
    CallRecord a = TestCalls.fill(new CallRecord(), 3);
    CallRecord b = TestCalls.fill(new CallRecord(), 3);
    assertNotSame(a, b);
    assertFalse(a.equals(b));
    assertTrue(a.equals(a));
  }
}
