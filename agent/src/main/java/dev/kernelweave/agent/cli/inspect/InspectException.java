package dev.kernelweave.agent.cli.inspect;

/** A failure the command line reports as one line and an exit code, without a stack trace. */
public final class InspectException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  public InspectException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
