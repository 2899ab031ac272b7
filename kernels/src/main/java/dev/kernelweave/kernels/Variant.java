package dev.kernelweave.kernels;

import java.util.Locale;
import java.util.function.Function;

/** The ways each workload is written. */
public enum Variant {
  /** As users write it: default stream only, synchronous copies from Java arrays. */
  SERIAL,
  /** Hand-tuned: a stream per independent unit, events across streams, pinned async copies. */
  TUNED,
  /**
   * The tuned twin's streams and events captured once into CUDA graphs ({@code
   * cuStreamBeginCapture}, fork and join by events) and replayed with {@code cuGraphLaunch} every
   * repetition; host waits and read-backs stay outside the graphs. What a transparent tool could at
   * best reach.
   */
  GRAPH;

  /** The name used on the command line and in results. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * What {@code serial}, {@code tuned} or {@code graph}, the one for this variant, makes of {@code
   * problem}.
   */
  public <P, W> W create(
      P problem,
      Function<? super P, ? extends W> serial,
      Function<? super P, ? extends W> tuned,
      Function<? super P, ? extends W> graph) {
    switch (this) {
      case SERIAL:
        return serial.apply(problem);
      case TUNED:
        return tuned.apply(problem);
      default:
        return graph.apply(problem);
    }
  }

  /** Parses {@link #label()}. */
  public static Variant of(String label) {
    for (Variant v : values()) {
      if (v.label().equals(label)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown variant '" + label + "' (serial, tuned or graph)");
  }
}
