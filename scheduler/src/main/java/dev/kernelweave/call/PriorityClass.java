package dev.kernelweave.call;

import static dev.kernelweave.text.ConstantNames.constantNamed;

import java.util.Locale;

/**
 * How urgent a call is, from the thread that made it ({@link ThreadPriorities}): the scheduler
 * places it on a lane of its class, a stream created with the matching CUDA stream priority. Stored
 * in the journal by ordinal: reordering needs a new journal format version.
 */
public enum PriorityClass {
  /** Someone waits for it (a request): the device's greatest stream priority. */
  HIGH,
  /** Everything unmapped: CUDA's default stream priority, as without the agent. */
  NORMAL,
  /** Background work: the device's least stream priority. */
  LOW;

  private static final PriorityClass[] BY_ORDINAL = values();

  private final String label = name().toLowerCase(Locale.ROOT);

  /** The lower-case name used in options, {@code inspect} and the trace. */
  public String label() {
    return label;
  }

  public static PriorityClass ofOrdinal(int ordinal) {
    return BY_ORDINAL[ordinal];
  }

  /** The class named {@code label} ({@code high}, {@code normal}, {@code low}), or null. */
  public static PriorityClass ofLabel(String label) {
    return constantNamed(BY_ORDINAL, PriorityClass::label, label);
  }
}
