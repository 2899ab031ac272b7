package dev.kernelweave.interceptor.observe;

import dev.kernelweave.call.CallKind;

/** {@link SchedulingMXBean} over a set of counters. Thread-safe, as the counters are. */
final class Scheduling implements SchedulingMXBean {

  private final SchedulingCounters c;

  Scheduling(SchedulingCounters counters) {
    this.c = counters;
  }

  @Override
  public long getCalls() {
    return c.total(SchedulingCounters.CALLS);
  }

  @Override
  public long getFailedCalls() {
    return c.total(SchedulingCounters.FAILED);
  }

  @Override
  public long getLaunches() {
    return c.calls(CallKind.LAUNCH);
  }

  @Override
  public long getBlasCalls() {
    return c.calls(CallKind.BLAS);
  }

  @Override
  public long getCopies() {
    return c.calls(CallKind.COPY_HOST_TO_DEVICE) + c.calls(CallKind.COPY_DEVICE_TO_HOST)
        + c.calls(CallKind.COPY_DEVICE_TO_DEVICE);
  }

  @Override
  public long getMemsets() {
    return c.calls(CallKind.MEMSET);
  }

  @Override
  public long getSynchronizations() {
    return c.calls(CallKind.SYNC);
  }

  @Override
  public long getBytesHostToDevice() {
    return c.total(SchedulingCounters.BYTES_HOST_TO_DEVICE);
  }

  @Override
  public long getBytesDeviceToHost() {
    return c.total(SchedulingCounters.BYTES_DEVICE_TO_HOST);
  }

  @Override
  public long getBytesDeviceToDevice() {
    return c.total(SchedulingCounters.BYTES_DEVICE_TO_DEVICE);
  }

  @Override
  public int getStreamsUsed() {
    return c.streamsUsed();
  }

  @Override
  public long getCrossStreamWaits() {
    return c.total(SchedulingCounters.CROSS_STREAM_WAITS);
  }

  @Override
  public long getEventsRecorded() {
    return c.total(SchedulingCounters.EVENTS_RECORDED);
  }

  @Override
  public long getHostWaits() {
    return c.total(SchedulingCounters.HOST_WAITS);
  }

  @Override
  public long getHostWaitsNarrowed() {
    return c.total(SchedulingCounters.HOST_WAITS_NARROWED);
  }

  @Override
  public long getBarriers() {
    return c.total(SchedulingCounters.BARRIERS);
  }

  @Override
  public long getHostWaitNanos() {
    return c.total(SchedulingCounters.HOST_WAIT_NANOS);
  }

  @Override
  public long getLaunchesReplayed() {
    return c.total(SchedulingCounters.LAUNCHES_REPLAYED);
  }

  @Override
  public long getBlasCallsReplayed() {
    return c.total(SchedulingCounters.BLAS_CALLS_REPLAYED);
  }
}
