package dev.kernelweave.call;

/**
 * What a call does to a range of memory. When the agent cannot tell, it assumes {@link #READ_WRITE}:
 * a wrong {@link #READ} could let a writer overlap a reader, a wrong {@link #READ_WRITE} only costs
 * concurrency.
 */
public enum AccessMode {
  READ("R"),
  WRITE("W"),
  READ_WRITE("RW");

  private static final AccessMode[] BY_ORDINAL = values();

  private final String symbol;

  AccessMode(String symbol) {
    this.symbol = symbol;
  }

  /** The short form used in the journal and the command line: R, W or RW. */
  public String symbol() {
    return symbol;
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
