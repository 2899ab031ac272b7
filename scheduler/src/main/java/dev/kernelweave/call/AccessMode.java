package dev.kernelweave.call;

/**
 * What a call does to a range of memory. When the agent cannot tell, it assumes {@link #READ_WRITE}:
 * a wrong {@link #READ} could let a writer overlap a reader, a wrong {@link #READ_WRITE} only costs
 * concurrency.
 */
public enum AccessMode {
  READ,
  WRITE,
  READ_WRITE;

  private static final AccessMode[] BY_ORDINAL = values();

  /** The short form used in the journal and the command line: R, W or RW. */
  public String symbol() {
    return switch (this) {
      case READ -> "R";
      case WRITE -> "W";
      case READ_WRITE -> "RW";
    };
  }

  public boolean reads() {
    return this != WRITE;
  }

  public boolean writes() {
    return this != READ;
  }

  public static AccessMode ofOrdinal(int ordinal) {
    return BY_ORDINAL[ordinal];
  }
}
