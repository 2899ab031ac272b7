package dev.kernelweave.interceptor.observe;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.AgentLog;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * Shows finished calls to the JVM's own tools: counts them for the {@link SchedulingMXBean} and
 * commits JFR events ({@code kernelweave.Launch}, {@code kernelweave.HostWait}) while a recording
 * wants them.
 *
 * <p>{@link #emit} is on every call's path: it takes no lock, allocates nothing when no recording
 * wants the events, and never throws. The MBean is registered {@link #REGISTER_AFTER_MILLIS} after
 * the first call, on a short-lived daemon thread, because creating the platform MBean server loads
 * some 500 classes, hundreds of milliseconds that neither the application's first CUDA call nor a
 * short program's start should pay: a program that is gone within a second has nothing to watch
 * live. A program that makes no CUDA call gets neither the MBean nor the thread.
 *
 * <p>Thread-safe.
 */
public final class CallEvents {

  /** Where the MBean is registered. */
  public static final String OBJECT_NAME = "dev.kernelweave:type=Scheduling";

  /** How long after the first call the MBean is registered. */
  static final long REGISTER_AFTER_MILLIS = 1000;

  private static final AtomicBoolean REGISTERING = new AtomicBoolean();
  private static final SchedulingCounters COUNTERS = new SchedulingCounters(CallEvents::registerLater);
  /** False where the runtime has no {@code jdk.jfr} module (a trimmed image) or JFR is disabled. */
  private static final boolean FLIGHT_RECORDER = flightRecorderPresent();
  private static volatile boolean flightRecorderFailed;

  private CallEvents() {}

  /** Counts a finished call and commits its JFR events; {@code r} is complete and unchanged here. */
  public static void emit(CallRecord r) {
    try {
      COUNTERS.add(r);
    } catch (Throwable e) {
      AgentLog.warnOnce("call-counters", "the MBean's counters stopped: " + e);
    }
    if (FLIGHT_RECORDER && !flightRecorderFailed) {
      try {
        FlightEvents.commit(r);
      } catch (Throwable e) {
        // Observing must never cost the application its call: JFR events stop, the rest goes on.
        flightRecorderFailed = true;
        AgentLog.warnOnce("call-events", "JFR events stopped: " + e);
      }
    }
  }

  /** The live totals the MBean shows. */
  public static SchedulingMXBean totals() {
    return new Scheduling(COUNTERS);
  }

  /** The MBean over the live totals, with the descriptions of its attributes. */
  static StandardMBean mbean() {
    return new DescribedMXBean<>(totals(), SchedulingMXBean.class, SchedulingMXBean.DESCRIPTION);
  }

  private static boolean flightRecorderPresent() {
    try {
      Class.forName("jdk.jfr.FlightRecorder", false, CallEvents.class.getClassLoader());
      return true;
    } catch (Throwable e) {
      return false;
    }
  }

  private static void registerLater() {
    if (!REGISTERING.compareAndSet(false, true)) {
      return;
    }
    try {
      Thread t = new Thread(CallEvents::register, "kernelweave-jmx");
      t.setDaemon(true);
      t.start();
    } catch (Throwable e) {
      AgentLog.debug("no MBean " + OBJECT_NAME + ": " + e);
    }
  }

  private static void register() {
    try {
      Thread.sleep(REGISTER_AFTER_MILLIS);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      server.registerMBean(mbean(), new ObjectName(OBJECT_NAME));
    } catch (InstanceAlreadyExistsException e) {
      // Another copy of the agent's classes (another class loader) registered first: it counts too.
      AgentLog.debug(OBJECT_NAME + " is already registered");
    } catch (Throwable e) {
      AgentLog.warnOnce("mbean", "no MBean " + OBJECT_NAME + ": " + e);
    }
  }
}
