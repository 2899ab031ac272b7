package dev.kernelweave.journal;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.queue.rollcycles.LegacyRollCycles;
import net.openhft.chronicle.queue.rollcycles.SparseRollCycles;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

/**
 * Chronicle's data file names: a queue writes one file per roll cycle in which it wrote, named by
 * the cycle's start in UTC (for example {@code 20261127-05F} for an hour of {@code FAST_HOURLY}).
 * From two file names this says which cycles lie between them, so that a reader can name the files
 * that a gap of calls between them would have been in. The roll cycle is recognised from the names
 * themselves (the reader does not need the queue's table for it).
 */
final class RollCycleNames {

  /** Beyond this many cycles between two files, only the first and last are named. */
  private static final int NAMED = 3;

  private final DateTimeFormatter format;
  private final long lengthMillis;

  private RollCycleNames(DateTimeFormatter format, long lengthMillis) {
    this.format = format;
    this.lengthMillis = lengthMillis;
  }

  /**
   * The roll cycle whose names both {@code a} and {@code b} are (without the suffix), or null when
   * none is, or several of different lengths are.
   */
  static RollCycleNames of(String a, String b) {
    RollCycleNames found = null;
    for (RollCycle cycle : allCycles()) {
      RollCycleNames names = new RollCycleNames(formatter(cycle.format()), cycle.lengthInMillis());
      if (names.cycle(a) >= 0 && names.cycle(b) >= 0) {
        if (found != null && found.lengthMillis != names.lengthMillis) {
          return null;
        }
        found = names;
      }
    }
    return found;
  }

  private static List<RollCycle> allCycles() {
    List<RollCycle> all = new ArrayList<>();
    Stream.of(RollCycles.values(), LargeRollCycles.values(), LegacyRollCycles.values(),
        SparseRollCycles.values(), TestRollCycles.values()).forEach(v -> all.addAll(List.of(v)));
    return all;
  }

  private static DateTimeFormatter formatter(String pattern) {
    return new DateTimeFormatterBuilder().appendPattern(pattern)
        .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
        .parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0)
        .parseDefaulting(ChronoField.SECOND_OF_MINUTE, 0)
        .toFormatter().withZone(ZoneOffset.UTC);
  }

  /** The cycle number a name stands for, or -1 when it is not a name of this cycle. */
  long cycle(String name) {
    try {
      long millis = Instant.from(format.parse(name)).toEpochMilli();
      long cycle = Math.floorDiv(millis, lengthMillis);
      return name(cycle).equals(name) ? cycle : -1;
    } catch (RuntimeException e) {
      return -1;
    }
  }

  String name(long cycle) {
    return format.format(Instant.ofEpochMilli(cycle * lengthMillis));
  }

  /**
   * The names of the cycles strictly between {@code a} and {@code b} ({@code b} later), each with
   * {@code suffix}, as one phrase; null when they are adjacent (no file is missing between them).
   */
  String between(String a, String b, String suffix) {
    long first = cycle(a) + 1;
    long last = cycle(b) - 1;
    if (first > last) {
      return null;
    }
    long count = last - first + 1;
    if (count <= NAMED) {
      StringBuilder s = new StringBuilder();
      for (long c = first; c <= last; c++) {
        s.append(s.length() == 0 ? "" : ", ").append(name(c)).append(suffix);
      }
      return s.toString();
    }
    return count + " files, " + name(first) + suffix + " to " + name(last) + suffix;
  }
}
