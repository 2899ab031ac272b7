package dev.kernelweave.it.bench;

/** The three ways the benchmark runs each workload. */
public enum Way {
  /** The plain serial program, no agent: the baseline. */
  SERIAL("serial", false),
  /** The same serial program under the agent. */
  AGENT("serial", true),
  /** The hand-tuned multi-stream twin, no agent: the bar. */
  TUNED("tuned", false);

  private final String variant;
  private final boolean withAgent;

  Way(String variant, boolean withAgent) {
    this.variant = variant;
    this.withAgent = withAgent;
  }

  /** The workload variant this way runs ({@code --variant}). */
  public String variant() {
    return variant;
  }

  /** Whether this way runs under the agent. */
  public boolean withAgent() {
    return withAgent;
  }

  /** The name used in tables and files. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
