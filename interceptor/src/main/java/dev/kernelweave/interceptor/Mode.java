package dev.kernelweave.interceptor;

/** What the agent does with the calls it intercepts. */
public enum Mode {
  /** Every call runs exactly as written; the agent only journals. */
  PASSTHROUGH("passthrough"),
  /** Independent calls run concurrently on the agent's streams. */
  SCHEDULE("schedule");

  private final String option;

  Mode(String option) {
    this.option = option;
  }

  public String option() {
    return option;
  }
}
