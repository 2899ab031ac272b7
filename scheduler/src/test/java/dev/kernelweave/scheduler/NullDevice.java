package dev.kernelweave.scheduler;

/** A stream device that does nothing, for measuring the scheduler alone. */
class NullDevice implements StreamDevice {
  long operations;

  @Override
  public void createStream(int lane) {
    operations++;
  }

  @Override
  public void createEvent(int event) {
    operations++;
  }

  @Override
  public void recordEvent(int event, int lane) {
    operations++;
  }

  @Override
  public void waitEvent(int lane, int event) {
    operations++;
  }

  @Override
  public void synchronizeEvent(int event) {
    operations++;
  }

  @Override
  public void synchronizeDevice() {
    operations++;
  }

  @Override
  public void waitEventOnAppStream(long appStream, int event) {}
}
