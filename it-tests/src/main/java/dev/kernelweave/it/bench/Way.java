package dev.kernelweave.it.bench;

/** The ways the benchmark runs each workload. */
public enum Way {
  /** The plain serial program, no agent: the baseline. */
  SERIAL,
  /** The same serial program under the agent, scheduling. */
  AGENT,
  /** The hand-tuned multi-stream twin, no agent: the bar. */
  TUNED,
  /**
   * The serial program under the agent in {@code mode=passthrough}: every call as written, only
   * journaled. Its journal gives each call's host time without the scheduler, beside {@link
   * #AGENT}'s.
   */
  PASSTHROUGH,
  /**
   * The graph twin, no agent: the tuned twin's work captured once into CUDA graphs by hand and
   * replayed, the ceiling for a tool that leaves the program unchanged.
   */
  GRAPH;

  /**
   * The workload variant this way runs ({@code --variant}): the agent's ways run the serial program,
   * the others the variant of their own name.
   */
  public String variant() {
    return withAgent() ? SERIAL.label() : label();
  }

  /** Whether this way runs under the agent. */
  public boolean withAgent() {
    return this == AGENT || this == PASSTHROUGH;
  }

  /** Whether the agent runs in {@code mode=passthrough}, whatever the agent options say. */
  public boolean passthrough() {
    return this == PASSTHROUGH;
  }

  /** The name used in tables and files. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
