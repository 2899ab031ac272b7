package dev.kernelweave.interceptor;

import java.util.Locale;

/** What the agent does with the calls it intercepts. */
public enum Mode {
  /** Every call runs exactly as written; the agent only journals. */
  PASSTHROUGH,
  /** Independent calls run concurrently on the agent's streams. */
  SCHEDULE;

  private final String option = name().toLowerCase(Locale.ROOT);

  /** The value of the {@code mode=} option that selects it: its name in lower case. */
  public String option() {
    return option;
  }
}
