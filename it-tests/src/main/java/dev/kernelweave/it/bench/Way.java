package dev.kernelweave.it.bench;

/** The ways the benchmark runs each workload. */
public enum Way {
  /** The plain serial program, no agent: the baseline. */
  SERIAL("serial", false, false),
  /** The same serial program under the agent, scheduling. */
  AGENT("serial", true, false),
  /** The hand-tuned multi-stream twin, no agent: the bar. */
  TUNED("tuned", false, false),
  /**
   * The serial program under the agent in {@code mode=passthrough}: every call as written, only
   * journaled. Its journal gives each call's host time without the scheduler, beside {@link
   * #AGENT}'s.
   */
  PASSTHROUGH("serial", true, true),
  /**
   * The graph twin, no agent: the tuned twin's work captured once into CUDA graphs by hand and
   * replayed, the ceiling for a tool that leaves the program unchanged.
   */
  GRAPH("graph", false, false);

  private final String variant;
  private final boolean withAgent;
  private final boolean passthrough;

  Way(String variant, boolean withAgent, boolean passthrough) {
    this.variant = variant;
    this.withAgent = withAgent;
    this.passthrough = passthrough;
  }

  /** The workload variant this way runs ({@code --variant}). */
  public String variant() {
    return variant;
  }

  /** Whether this way runs under the agent. */
  public boolean withAgent() {
    return withAgent;
  }

  /** Whether the agent runs in {@code mode=passthrough}, whatever the agent options say. */
  public boolean passthrough() {
    return passthrough;
  }

  /** The name used in tables and files. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
