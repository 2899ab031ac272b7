package dev.kernelweave.interceptor.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;

/** The Scheduling MBean as a JMX client sees it: what each attribute counts, and launches apart from cuBLAS calls. */
class SchedulingMBeanTest {

  private static CallRecord call(CallKind kind, int graphWindow) {
    CallRecord r = new CallRecord();
    r.kind = kind;
    r.name = kind == CallKind.BLAS ? "cublasSgemm_v2" : "cuLaunchKernel";
    r.stream = 0;
    r.graphWindow = graphWindow;
    return r;
  }

  @Test
  void replayedLaunchesAndReplayedBlasCallsAreCountedApart() {
    SchedulingCounters c = new SchedulingCounters();
    Scheduling totals = new Scheduling(c);
    // A window of two launches and a routine, captured once (window 0 is no replay), then replayed twice.
    for (int window : new int[] {0, 4, 4}) {
      c.add(call(CallKind.LAUNCH, window));
      c.add(call(CallKind.LAUNCH, window));
      c.add(call(CallKind.BLAS, window));
    }
    assertEquals(6, totals.getLaunches());
    assertEquals(3, totals.getBlasCalls());
    assertEquals(4, totals.getLaunchesReplayed());
    assertEquals(2, totals.getBlasCallsReplayed());
    assertTrue(totals.getLaunchesReplayed() <= totals.getLaunches());
  }

  @Test
  void everyAttributeHasItsOwnDescription() {
    StandardMBean bean = new DescribedMXBean<>(new Scheduling(new SchedulingCounters()), SchedulingMXBean.class,
        SchedulingMXBean.DESCRIPTION);
    MBeanInfo info = bean.getMBeanInfo();
    assertEquals(SchedulingMXBean.DESCRIPTION, info.getDescription());
    Set<String> descriptions = new HashSet<>();
    for (MBeanAttributeInfo a : info.getAttributes()) {
      assertNotNull(a.getDescription(), a.getName());
      assertFalse(a.getDescription().equals(a.getName()) || a.getDescription().contains("exposed for management"),
          a.getName() + ": " + a.getDescription());
      assertTrue(descriptions.add(a.getDescription()), "one description for two attributes: " + a.getDescription());
    }
    assertEquals(SchedulingMXBean.class.getMethods().length, info.getAttributes().length, "an attribute per getter");
    for (Method getter : SchedulingMXBean.class.getMethods()) {
      assertNotNull(getter.getAnnotation(AttributeDescription.class), getter.getName() + " has no description");
    }
  }

  @Test
  void registeredBeanShowsTheDescriptionsAndTheCounts() throws Exception {
    MBeanServer server = MBeanServerFactory.newMBeanServer();
    ObjectName name = new ObjectName(CallEvents.OBJECT_NAME);
    CallEvents events = new CallEvents();
    server.registerMBean(events.mbean(), name);
    MBeanAttributeInfo replayed = null;
    for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
      if (a.getName().equals("BlasCallsReplayed")) {
        replayed = a;
      }
    }
    assertNotNull(replayed, "BlasCallsReplayed is an attribute");
    assertTrue(replayed.getDescription().startsWith("cuBLAS calls"), replayed.getDescription());
    assertEquals(events.totals().getLaunchesReplayed(), server.getAttribute(name, "LaunchesReplayed"));
  }
}
