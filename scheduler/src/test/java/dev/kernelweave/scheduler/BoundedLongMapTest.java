package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BoundedLongMapTest {

  @Test
  void findsWhatAHashMapFindsThroughPutsAndRemovesThatCollide() {
    List<String> evicted = new ArrayList<>();
    BoundedLongMap<String> map = new BoundedLongMap<>(64, evicted::add);
    Map<Long, String> expected = new HashMap<>();
    SplittableRandom random = new SplittableRandom(7);
    // Keys whose home cells (of the 256 a bound of 64 makes) are the last and the first two, so
    // that probes run long, wrap around, and removals must move entries back.
    long[] keys = new long[48];
    for (long k = -1_000_000, n = 0; n < keys.length; k++) {
      int home = LongFlags.spread(k) & 255;
      if (home == 255 || home == 0 || home == 1) {
        keys[(int) n++] = k;
      }
    }
    for (int step = 0; step < 200_000; step++) {
      long key = keys[random.nextInt(keys.length)];
      if (random.nextInt(3) == 0) {
        assertEquals(expected.remove(key), map.remove(key), "remove " + key + " at step " + step);
      } else {
        String value = "v" + step;
        map.put(key, value);
        expected.put(key, value);
      }
      long probe = keys[random.nextInt(keys.length)];
      assertEquals(expected.get(probe), map.get(probe), "get " + probe + " at step " + step);
      assertEquals(expected.size(), map.size());
    }
    assertTrue(evicted.isEmpty(), "never past its bound: " + evicted.size() + " evicted");
  }

  @Test
  void makingRoomDropsAnEntryNotUsedSinceTheLastPassAndTellsTheOwner() {
    List<String> evicted = new ArrayList<>();
    BoundedLongMap<String> map = new BoundedLongMap<>(4, evicted::add);
    for (long k = 1; k <= 4; k++) {
      map.put(k, "w" + k);
    }
    map.put(5, "w5");
    assertEquals(1, evicted.size(), "one entry makes room for the fifth");
    assertEquals(4, map.size());
    long idle = 0;
    for (long k = 1; k <= 4 && idle == 0; k++) {
      if (!evicted.contains("w" + k)) {
        idle = k;
      }
    }
    for (long k = 1; k <= 5; k++) {
      if (k != idle && !evicted.contains("w" + k)) {
        assertEquals("w" + k, map.get(k));
      }
    }
    evicted.clear();
    map.put(6, "w6");
    assertEquals(List.of("w" + idle), evicted, "the only entry not used since the last pass");
    assertNull(map.get(idle));
    assertEquals("w6", map.get(6));
    assertEquals(4, map.size());
  }

  @Test
  void removedAndClearedEntriesAreNotReportedAsEvicted() {
    List<String> evicted = new ArrayList<>();
    BoundedLongMap<String> map = new BoundedLongMap<>(2, evicted::add);
    map.put(1, "a");
    map.put(2, "b");
    assertEquals("a", map.remove(1));
    map.put(3, "c");
    map.clear();
    map.put(4, "d");
    map.put(5, "e");
    assertTrue(evicted.isEmpty(), evicted.toString());
    List<String> all = new ArrayList<>();
    map.forEach(all::add);
    all.sort(null);
    assertEquals(List.of("d", "e"), all);
  }
}
