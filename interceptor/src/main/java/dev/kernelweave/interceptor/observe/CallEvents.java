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
 * <p>One per {@code AgentState}, which owns the counters; each copy of the interceptor's classes
 * (one per class loader that holds JCuda) counts its own calls, and the first to register shows
 * its totals. Thread-safe.
 */
public final class CallEvents {

  /** Where the MBean is registered. */
  public static final String OBJECT_NAME = "dev.kernelweave:type=Scheduling";

  /** How long after the first call the MBean is registered. */
  static final long REGISTER_AFTER_MILLIS = 1000;


  private final AtomicBoolean registering = new AtomicBoolean();
  private final SchedulingCounters counters = new SchedulingCounters(new RegisterLater());
  private volatile boolean flightRecorderFailed;
  /** Where the MBean goes; null for the platform's, looked up only as it is registered. */
  private final MBeanServer server;

  /** Events whose MBean is registered with the platform's MBean server. */
  public CallEvents() {
    this(null);
  }

  /** Events whose MBean is registered with {@code server}: a test's own, apart from the platform's. */
  CallEvents(MBeanServer server) {
    this.server = server;
  }

  /** Counts a finished call and commits its JFR events; {@code r} is complete and unchanged here. */
  public void emit(CallRecord r) {
    try {
      counters.add(r);
    } catch (Throwable e) {
      AgentLog.warnOnce("call-counters", "the MBean's counters stopped: " + e);
    }
    if (FlightRecorderPresence.PRESENT && !flightRecorderFailed) {
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
  public SchedulingMXBean totals() {
    return new Scheduling(counters);
  }

  /** The MBean over the live totals, with the descriptions of its attributes. */
  StandardMBean mbean() {
    return new DescribedMXBean<>(totals(), SchedulingMXBean.class, SchedulingMXBean.DESCRIPTION);
  }

  /**
   * Whether the runtime has the {@code jdk.jfr} module (a trimmed image has not, or JFR is disabled):
   * a constant, looked up at the first call's end rather than as the interceptor's state is made.
   */
  private static final class FlightRecorderPresence {
    static final boolean PRESENT = present();

    private static boolean present() {
      try {
        Class.forName("jdk.jfr.FlightRecorder", false, CallEvents.class.getClassLoader());
        return true;
      } catch (Throwable e) {
        return false;
      }
    }
  }

  /**
   * Registers the MBean soon after the first call; a class, not a lambda, since it is made with the
   * interceptor's state at the agent's start, where the first lambda would cost its bootstrap.
   */
  private final class RegisterLater implements Runnable {
    @Override
    public void run() {
      registerLater();
    }
  }

  private void registerLater() {
    if (!registering.compareAndSet(false, true)) {
      return;
    }
    try {
      Thread t = new Thread(this::register, "kernelweave-jmx");
      t.setDaemon(true);
      t.start();
    } catch (Throwable e) {
      AgentLog.debug("no MBean " + OBJECT_NAME + ": " + e);
    }
  }

  private void register() {
    try {
      Thread.sleep(REGISTER_AFTER_MILLIS);
      MBeanServer to = server != null ? server : ManagementFactory.getPlatformMBeanServer();
      to.registerMBean(mbean(), new ObjectName(OBJECT_NAME));
    } catch (InstanceAlreadyExistsException e) {
      // Another copy of the agent's classes (another class loader) registered first: it counts too.
      AgentLog.debug(OBJECT_NAME + " is already registered");
    } catch (Throwable e) {
      AgentLog.warnOnce("mbean", "no MBean " + OBJECT_NAME + ": " + e);
    }
  }
}
