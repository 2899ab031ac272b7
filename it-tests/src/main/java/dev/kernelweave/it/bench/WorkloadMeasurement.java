package dev.kernelweave.it.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Everything the benchmark gathered about one workload: every repetition of every way. */
public final class WorkloadMeasurement {
  private final String name;
  private final Map<Way, List<Double>> times = new EnumMap<>(Way.class);
  private final Map<Way, Set<String>> checksums = new EnumMap<>(Way.class);
  private String sizes = "";
  private Path journal;
  private String failure;

  public WorkloadMeasurement(String name) {
    this.name = name;
    for (Way way : Way.values()) {
      times.put(way, new ArrayList<>());
      checksums.put(way, new LinkedHashSet<>());
    }
  }

  /** Adds one JVM's result for {@code way}. */
  public void add(Way way, WorkloadResult result) {
    times.get(way).addAll(result.ms());
    checksums.get(way).add(result.checksum());
    if (sizes.isEmpty()) {
      sizes = result.sizes();
    }
  }

  /** Marks the workload failed; its times no longer count. */
  public void fail(String why) {
    failure = why;
  }

  /** Records where the latest agent run put its journal. */
  public void journal(Path dir) {
    journal = dir;
  }

  public String name() {
    return name;
  }

  /** The workload's description of its sizes (from the first result). */
  public String sizes() {
    return sizes;
  }

  /** Where the last agent run's journal is, or null. */
  public Path journal() {
    return journal;
  }

  /** Why the workload failed, or null. */
  public String failure() {
    return failure;
  }

  /** Every repetition time of {@code way}, in the order measured. */
  public List<Double> times(Way way) {
    return List.copyOf(times.get(way));
  }

  /** Every distinct output checksum that {@code way} produced. */
  public Set<String> checksums(Way way) {
    return Set.copyOf(checksums.get(way));
  }

  /** Whether all three ways ran and every run produced the same output. */
  public boolean outputsEqual() {
    Set<String> all = new LinkedHashSet<>();
    checksums.values().forEach(all::addAll);
    return all.size() == 1 && checksums.values().stream().noneMatch(Set::isEmpty);
  }

  /** Which ways' outputs differ from serial's (or vary between runs), for a reader; empty if none. */
  public String outputDifference() {
    List<String> differ = new ArrayList<>();
    Set<String> serial = checksums.get(Way.SERIAL);
    for (Way way : Way.values()) {
      Set<String> sums = checksums.get(way);
      if (sums.size() > 1) {
        differ.add(way.label() + " varies between runs");
      } else if (way != Way.SERIAL && !sums.isEmpty() && !sums.equals(serial)) {
        differ.add(way.label() + " differs from serial");
      }
    }
    return String.join(", ", differ);
  }

  /** Whether the workload ran every way, with equal outputs: its numbers count. */
  public boolean ok() {
    return failure == null && outputsEqual();
  }

  /** Median and spread of {@code way}, or null if it has no times. */
  public Stats.Summary summary(Way way) {
    List<Double> t = times.get(way);
    return t.isEmpty() ? null : Stats.summarize(t);
  }

  /** Median serial time over median time of {@code way}; NaN where either is missing. */
  public double speedup(Way way) {
    Stats.Summary serial = summary(Way.SERIAL);
    Stats.Summary other = summary(way);
    return serial == null || other == null ? Double.NaN : serial.median() / other.median();
  }

  /** The agent's speedup as a percentage of the hand-tuned twin's speedup. */
  public double agentOfTunedPercent() {
    return 100 * speedup(Way.AGENT) / speedup(Way.TUNED);
  }

  /** How much slower the agent run is than the serial one, in percent (negative: faster). */
  public double agentOverheadPercent() {
    return 100 * (1 / speedup(Way.AGENT) - 1);
  }
}
