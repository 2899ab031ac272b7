package dev.kernelweave.it.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Everything the benchmark gathered about one workload, or one program of the corpus: every
 * repetition of every way it runs.
 */
public final class WorkloadMeasurement {
  private final String name;
  private final boolean corpus;
  private final Map<Way, List<Double>> times = new EnumMap<>(Way.class);
  private final Map<Way, List<Double>> runMedians = new EnumMap<>(Way.class);
  private final Map<Way, Set<String>> checksums = new EnumMap<>(Way.class);
  private final Map<Way, List<LaunchHostTime>> launchHostTimes = new EnumMap<>(Way.class);
  private final Map<Way, Path> journals = new EnumMap<>(Way.class);
  private final Map<Way, List<String>> journalStats = new EnumMap<>(Way.class);
  private String sizes = "";
  private String failure;

  /** A workload, run every {@link Way}. */
  public WorkloadMeasurement(String name) {
    this(name, false);
  }

  /**
   * @param corpus whether {@code name} is a program of the corpus, which has no hand-tuned twin and
   *     runs only {@link Way#SERIAL} and {@link Way#AGENT}
   */
  public WorkloadMeasurement(String name, boolean corpus) {
    this.name = name;
    this.corpus = corpus;
    for (Way way : Way.values()) {
      times.put(way, new ArrayList<>());
      runMedians.put(way, new ArrayList<>());
      checksums.put(way, new LinkedHashSet<>());
      launchHostTimes.put(way, new ArrayList<>());
    }
  }

  /** Adds one JVM's result for {@code way}. */
  public void add(Way way, WorkloadResult result) {
    times.get(way).addAll(result.ms());
    runMedians.get(way).add(RepetitionStats.median(result.ms()));
    checksums.get(way).add(result.checksum());
    if (sizes.isEmpty()) {
      sizes = result.sizes();
    }
  }

  /** Marks the workload failed; its times no longer count. */
  public void fail(String why) {
    failure = why;
  }

  /** Records where the latest run of {@code way} put its journal. */
  public void journal(Way way, Path dir) {
    journals.put(way, dir);
  }

  /**
   * Records what {@code inspect stats} said of the journal of one run of {@code way}: its text is
   * kept for the latest run, its launches' host time (null where it had none) for every run.
   */
  public void journalStats(Way way, List<String> lines, LaunchHostTime hostTime) {
    journalStats.put(way, List.copyOf(lines));
    if (hostTime != null) {
      launchHostTimes.get(way).add(hostTime);
    }
  }

  public String name() {
    return name;
  }

  /** Whether this is a program of the corpus rather than a workload. */
  public boolean corpus() {
    return corpus;
  }

  /** The ways this runs: every way for a workload; serial and agent for a corpus program. */
  public List<Way> ways() {
    return corpus ? List.of(Way.SERIAL, Way.AGENT) : List.of(Way.values());
  }

  /** The workload's description of its sizes (from the first result). */
  public String sizes() {
    return sizes;
  }

  /** Where the latest run of {@code way} left its journal, or null. */
  public Path journal(Way way) {
    return journals.get(way);
  }

  /** What {@code inspect stats} said of the latest journal of {@code way}; empty if nothing. */
  public List<String> journalStats(Way way) {
    return journalStats.getOrDefault(way, List.of());
  }

  /** The launches' host time of each run of {@code way} whose journal had launches, in order. */
  public List<LaunchHostTime> launchHostTimes(Way way) {
    return List.copyOf(launchHostTimes.get(way));
  }

  /**
   * The median over runs of the mean host microseconds per launch of {@code way}; NaN where no run
   * of it had launches.
   */
  public double launchHostMicros(Way way) {
    List<Double> means = launchHostTimes.get(way).stream().map(LaunchHostTime::meanMicros).toList();
    return means.isEmpty() ? Double.NaN : RepetitionStats.median(means);
  }

  /**
   * What the scheduler adds to a launch's host time: {@link #launchHostMicros} of {@link Way#AGENT}
   * less that of {@link Way#PASSTHROUGH}.
   */
  public double launchHostExtraMicros() {
    return launchHostMicros(Way.AGENT) - launchHostMicros(Way.PASSTHROUGH);
  }

  /** Why the workload failed, or null. */
  public String failure() {
    return failure;
  }

  /** Every repetition time of {@code way}, in the order measured. */
  public List<Double> times(Way way) {
    return List.copyOf(times.get(way));
  }

  /** The median of each JVM of {@code way}, in the order run: a bimodal way shows here. */
  public List<Double> runMedians(Way way) {
    return List.copyOf(runMedians.get(way));
  }

  /** Every distinct output checksum that {@code way} produced. */
  public Set<String> checksums(Way way) {
    return Set.copyOf(checksums.get(way));
  }

  /**
   * Whether serial, agent and tuned (not for a corpus program) ran, and every run of every way
   * produced the same output ({@link Way#PASSTHROUGH} and {@link Way#GRAPH} count where they ran).
   */
  public boolean outputsEqual() {
    Set<String> all = new LinkedHashSet<>();
    checksums.values().forEach(all::addAll);
    Stream<Way> required = corpus ? Stream.of(Way.SERIAL, Way.AGENT) : Stream.of(Way.SERIAL, Way.AGENT, Way.TUNED);
    return all.size() == 1 && required.noneMatch(way -> checksums.get(way).isEmpty());
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
  public RepetitionStats.Summary summary(Way way) {
    List<Double> t = times.get(way);
    return t.isEmpty() ? null : RepetitionStats.summarize(t);
  }

  /** Median serial time over median time of {@code way}; NaN where either is missing. */
  public double speedup(Way way) {
    RepetitionStats.Summary serial = summary(Way.SERIAL);
    RepetitionStats.Summary other = summary(way);
    return serial == null || other == null ? Double.NaN : serial.median() / other.median();
  }

  /** The agent's speedup as a percentage of the hand-tuned twin's speedup. */
  public double agentOfTunedPercent() {
    return 100 * speedup(Way.AGENT) / speedup(Way.TUNED);
  }

  /** The agent's speedup as a percentage of the graph twin's speedup; NaN where either is missing. */
  public double agentOfGraphPercent() {
    return 100 * speedup(Way.AGENT) / speedup(Way.GRAPH);
  }

  /** How much slower the agent run is than the serial one, in percent (negative: faster). */
  public double agentOverheadPercent() {
    return 100 * (1 / speedup(Way.AGENT) - 1);
  }
}
