package dev.kernelweave.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.selftest.SelfTestKernel;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulator keeps CUDA's ordering rules, and exposes work that runs without them. */
class SimDeviceTest {

  private static final SimDevice.Timing SLOW_DEVICE = new SimDevice.Timing(0, 100, 3);
  private static final int BYTES = 64;

  private static byte[] fill(int k) {
    int[] out = new int[BYTES / 4];
    SelfTestKernel.FILL.apply(out, null, null, out.length, k);
    byte[] b = new byte[BYTES];
    for (int i = 0; i < out.length; i++) {
      for (int j = 0; j < 4; j++) {
        b[4 * i + j] = (byte) (out[i] >>> (8 * j));
      }
    }
    return b;
  }

  /** Launches FILL on lane 0, then reads it on the legacy lane, optionally ordered by an event. */
  private static byte[] fillThenRead(SimDevice sim, boolean ordered) {
    long buf = sim.allocDevice(BYTES);
    sim.copyHostToDevice(buf, new byte[BYTES]);
    sim.synchronizeDevice();
    sim.createStream(0);
    sim.launch(0, SelfTestKernel.FILL, buf, 0, 0, BYTES / 4, 7);
    if (ordered) {
      sim.createEvent(0);
      sim.recordEvent(0, 0);
      sim.waitEvent(sim.streams(), 0);
    }
    byte[] read = new byte[BYTES];
    sim.copyDeviceToHost(read, buf);
    return read;
  }

  @Test
  void readWithoutTheProducersEventSeesStaleBytesAndARace() {
    int stale = 0;
    int races = 0;
    for (long seed = 0; seed < 50; seed++) {
      SimDevice sim = new SimDevice(2, seed, SLOW_DEVICE);
      if (!Arrays.equals(fill(7), fillThenRead(sim, false))) {
        stale++;
      }
      if (sim.faults().stream().anyMatch(f -> f.startsWith("race"))) {
        races++;
      }
    }
    assertTrue(stale > 0, "some interleaving reads before the write");
    assertTrue(races > 0, "overlapping writer and reader reported");
  }

  @Test
  void theLegacyLaneWaitsForBlockingStreamsButNotForNonBlockingOnes() {
    int nonBlockingOvertaken = 0;
    for (long seed = 0; seed < 50; seed++) {
      for (boolean nonBlocking : new boolean[] {false, true}) {
        SimDevice sim = new SimDevice(2, seed, SLOW_DEVICE);
        long a = sim.allocDevice(BYTES);
        sim.createAppStream(100, nonBlocking);
        sim.launch(sim.appStreamLane(100), SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 7);
        byte[] read = new byte[BYTES];
        sim.copyDeviceToHost(read, a);
        if (!nonBlocking) {
          assertArrayEquals(fill(7), read);
        } else if (!Arrays.equals(fill(7), read)) {
          nonBlockingOvertaken++;
        }
      }
    }
    assertTrue(nonBlockingOvertaken > 0);
  }

  @Test
  void aHostWaitThatCanNeverEndThrowsInsteadOfHanging() {
    SimDevice sim = new SimDevice(2, 1, SLOW_DEVICE);
    long h = sim.allocHost(16);
    sim.launchHostFunction(sim.streams(), 0, h, h + 8, 8);
    IllegalStateException e = assertThrows(IllegalStateException.class, sim::synchronizeDevice);
    assertTrue(e.getMessage().startsWith("deadlock") && e.getMessage().contains("gate 0"), e.getMessage());
    sim.openGate(0);
    sim.synchronizeDevice();
  }

  @Test
  void waitEventOrdersAcrossLanes() {
    for (long seed = 0; seed < 50; seed++) {
      SimDevice sim = new SimDevice(2, seed, SLOW_DEVICE);
      assertArrayEquals(fill(7), fillThenRead(sim, true));
      assertEquals(List.of(), sim.faults());
    }
  }

  @Test
  void waitCapturesTheEventsRecordingAtTheTimeOfTheWait() {
    // Lane 1 waits for e0 recorded after FILL 1; e0 is recorded again after FILL 2. Lane 1's copy
    // of FILL 1's output must not be held back by FILL 2, and sometimes runs while FILL 2 does.
    int overlapped = 0;
    for (long seed = 0; seed < 50; seed++) {
      SimDevice sim = new SimDevice(2, seed, SLOW_DEVICE);
      long a = sim.allocDevice(BYTES);
      long b = sim.allocDevice(BYTES);
      long c = sim.allocDevice(BYTES);
      sim.createStream(0);
      sim.createStream(1);
      sim.createEvent(0);
      sim.launch(0, SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 1);
      sim.recordEvent(0, 0);
      sim.waitEvent(1, 0);
      sim.launch(0, SelfTestKernel.FILL, b, 0, 0, BYTES / 4, 2);
      sim.recordEvent(0, 0);
      sim.copyDeviceToDevice(1, c, a, BYTES);
      sim.synchronizeDevice();
      byte[] read = new byte[BYTES];
      sim.copyDeviceToHost(read, c);
      assertArrayEquals(fill(1), read);
      assertEquals(List.of(), sim.faults());
      if (sim.peakConcurrency() == 2) {
        overlapped++;
      }
    }
    assertTrue(overlapped > 0);
  }

  @Test
  void lanesRunInOrder() {
    for (long seed = 0; seed < 20; seed++) {
      SimDevice sim = new SimDevice(1, seed, SLOW_DEVICE);
      long a = sim.allocDevice(BYTES);
      sim.createStream(0);
      sim.launch(0, SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 1);
      sim.launch(0, SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 2);
      sim.launch(0, SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 3);
      sim.synchronizeLane(0);
      byte[] read = new byte[BYTES];
      sim.copyDeviceToHost(read, a);
      assertArrayEquals(fill(3), read);
      assertEquals(List.of(), sim.faults());
    }
  }

  @Test
  void freeUnderPendingWorkIsAFaultAndPoisonsTheMemory() {
    boolean sawPoison = false;
    for (long seed = 0; seed < 20; seed++) {
      SimDevice sim = new SimDevice(1, seed, SLOW_DEVICE);
      long a = sim.allocDevice(BYTES);
      long host = sim.allocHost(BYTES);
      sim.copyHostToDevice(a, fill(5));
      sim.synchronizeDevice();
      sim.createStream(0);
      sim.copyDeviceToHostAsync(0, host, a, BYTES);
      sim.freeDevice(a);
      sim.synchronizeDevice();
      assertFalse(sim.faults().isEmpty());
      assertTrue(sim.faults().get(0).contains("free") || sim.faults().get(0).contains("use after free"),
          sim.faults().get(0));
      byte[] seen = sim.readHost(host, BYTES);
      sawPoison |= seen[0] == Arena.POISON;
    }
    assertTrue(sawPoison, "a copy that starts after the free reads poison");
  }

  @Test
  void pendingWorkOnAReusedAddressIsAFault() {
    SimDevice sim = new SimDevice(1, 1, SLOW_DEVICE);
    long a = sim.allocDevice(BYTES);
    sim.createStream(0);
    sim.launch(0, SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 1);
    sim.launch(0, SelfTestKernel.FILL, a, 0, 0, BYTES / 4, 2);
    sim.freeDevice(a);
    long b = sim.allocDevice(BYTES);
    assertEquals(a, b, "first fit hands the freed address out again");
    sim.synchronizeDevice();
    assertTrue(sim.faults().stream().anyMatch(f -> f.startsWith("use after free")), sim.faults().toString());
  }

  @Test
  void freedAddressesAreReused() {
    SimDevice sim = new SimDevice(1, 1);
    long a = sim.allocDevice(100);
    long b = sim.allocDevice(300);
    sim.freeDevice(a);
    assertEquals(a, sim.allocDevice(40));
    sim.freeDevice(b);
    long c = sim.allocDevice(5000);
    assertNotEquals(a, c);
    assertEquals(List.of(), sim.faults());
  }

  @Test
  void streamsAndEventsMustBeCreatedBeforeUse() {
    SimDevice sim = new SimDevice(2, 1);
    long a = sim.allocDevice(BYTES);
    sim.launch(1, SelfTestKernel.FILL, a, 0, 0, 4, 1);
    sim.recordEvent(3, 1);
    sim.createStream(0);
    sim.createStream(0);
    sim.synchronizeDevice();
    assertEquals(3, sim.faults().size(), sim.faults().toString());
  }

  @Test
  void theLegacyLaneNeedsNoCreation() {
    SimDevice sim = new SimDevice(2, 1);
    long a = sim.allocDevice(BYTES);
    sim.memset(2, a, (byte) 1, BYTES);
    sim.synchronizeDevice();
    assertEquals(List.of(), sim.faults());
  }

  @Test
  void sameSeedSameRun() {
    long[] ends = new long[2];
    for (int run = 0; run < 2; run++) {
      SimDevice sim = new SimDevice(2, 42);
      fillThenRead(sim, false);
      sim.synchronizeDevice();
      ends[run] = sim.now();
    }
    assertEquals(ends[0], ends[1]);
  }
}
