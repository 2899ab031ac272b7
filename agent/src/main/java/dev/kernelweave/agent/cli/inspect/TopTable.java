package dev.kernelweave.agent.cli.inspect;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Totals per key (thread, kernel) in bounded memory: the first {@value #TRACKED} keys seen are
 * counted apart, later ones together in one "other" row. {@link #rows} gives the {@value #SHOWN}
 * busiest and one row summing the rest, so that a journal of millions of threads prints a table of
 * at most {@value #SHOWN} + 1 rows. Not thread-safe.
 *
 * @param <K> the key
 */
final class TopTable<K> {

  static final int TRACKED = 4096;
  static final int SHOWN = 64;

  /** One row: how many calls and their nanoseconds. */
  static final class Row {
    final String name;
    long count;
    long nanos;

    Row(String name) {
      this.name = name;
    }
  }

  private final int tracked;
  private final int shown;
  private final Map<K, Row> rows = new HashMap<>();
  private final Row untracked = new Row(null);
  private final Comparator<Map.Entry<K, Row>> busiestFirst;

  TopTable(Comparator<K> tieBreak) {
    this(TRACKED, SHOWN, tieBreak);
  }

  TopTable(int tracked, int shown, Comparator<K> tieBreak) {
    this.tracked = tracked;
    this.shown = shown;
    this.busiestFirst = Comparator.comparingLong((Map.Entry<K, Row> e) -> -e.getValue().count)
        .thenComparing(Map.Entry::getKey, tieBreak);
  }

  /** The row of {@code key} (named by {@code name} when new), or the "other" row once full. */
  Row row(K key, Function<K, String> name) {
    Row row = rows.get(key);
    if (row == null) {
      if (rows.size() >= tracked) {
        return untracked;
      }
      row = new Row(name.apply(key));
      rows.put(key, row);
    }
    return row;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  /**
   * The busiest rows, then (when there are more) one row named {@code "other " + what} with the
   * number of keys it sums ("more than N" when keys went uncounted).
   */
  List<Row> rows(String what) {
    List<Map.Entry<K, Row>> sorted = new ArrayList<>(rows.entrySet());
    sorted.sort(busiestFirst);
    List<Row> out = new ArrayList<>();
    Row rest = null;
    long restKeys = 0;
    for (int i = 0; i < sorted.size(); i++) {
      Row r = sorted.get(i).getValue();
      if (i < shown) {
        out.add(r);
        continue;
      }
      rest = rest == null ? new Row(null) : rest;
      rest.count += r.count;
      rest.nanos += r.nanos;
      restKeys++;
    }
    if (untracked.count > 0) {
      rest = rest == null ? new Row(null) : rest;
      rest.count += untracked.count;
      rest.nanos += untracked.nanos;
    }
    if (rest != null) {
      Row named = new Row("(" + (untracked.count > 0 ? "more than " : "") + restKeys + " other " + what + ")");
      named.count = rest.count;
      named.nanos = rest.nanos;
      out.add(named);
    }
    return out;
  }
}
