package dev.kernelweave.scheduler;

import dev.kernelweave.call.PriorityClass;
import java.util.ArrayList;
import java.util.List;

/** A stream device that does nothing but write down, in order, what the scheduler asked of it. */
final class RecordingDevice implements StreamDevice {

  private final List<String> log = new ArrayList<>();
  /** Application streams that say they are not capturing; every other one says it is. */
  final java.util.Set<Long> notCapturing = new java.util.HashSet<>();
  /** Application streams whose work has all completed; every other one has some running. */
  final java.util.Set<Long> idle = new java.util.HashSet<>();
  /** Runs inside the next {@link #synchronizeLane}, where the host waits without the lock: what another thread does meanwhile. */
  Runnable duringNextLaneSynchronize;

  @Override
  public boolean appStreamCapturing(long appStream) {
    return !notCapturing.contains(appStream);
  }

  @Override
  public boolean appStreamIdle(long appStream) {
    return idle.contains(appStream);
  }

  /** Everything asked since the last call, and forgets it. */
  List<String> drain() {
    List<String> drained = List.copyOf(log);
    log.clear();
    return drained;
  }

  @Override
  public void createStream(int lane) {
    log.add("createStream " + lane);
  }

  /** A normal lane logs as {@link #createStream(int)} does; another class adds its label. */
  @Override
  public void createStream(int lane, PriorityClass priority) {
    log.add("createStream " + lane + (priority == PriorityClass.NORMAL ? "" : " " + priority.label()));
  }

  @Override
  public void createEvent(int event) {
    log.add("createEvent e" + event);
  }

  @Override
  public void recordEvent(int event, int lane) {
    log.add("record e" + event + " on " + lane);
  }

  @Override
  public void waitEvent(int lane, int event) {
    log.add("wait " + lane + " for e" + event);
  }

  @Override
  public void waitEventOnAppStream(long appStream, int event) {
    log.add("wait app " + appStream + " for e" + event);
  }

  @Override
  public void laneFollowsAppStream(int lane, long appStream) {
    log.add("lane " + lane + " follows app " + appStream);
  }

  @Override
  public void laneWaitsForAppEvent(int lane, long appEvent) {
    log.add("wait " + lane + " for app event " + appEvent);
  }

  @Override
  public void synchronizeEvent(int event) {
    log.add("syncEvent e" + event);
  }

  @Override
  public void synchronizeLane(int lane) {
    log.add("syncLane " + lane);
    Runnable meanwhile = duringNextLaneSynchronize;
    duringNextLaneSynchronize = null;
    if (meanwhile != null) {
      meanwhile.run();
    }
  }

  @Override
  public void synchronizeAppStream(long appStream) {
    log.add("syncAppStream " + appStream);
  }

  @Override
  public void synchronizeDevice() {
    log.add("syncDevice");
  }
}
