package dev.kernelweave.it.agent;

import java.lang.management.ManagementFactory;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Runs a workload ({@code dev.kernelweave.kernels.WorkloadMain ARGS}) and, as the JVM exits, prints
 * every attribute of the agent's MBean as {@code mbean NAME VALUE}, read through the platform MBean
 * server as a JMX client reads it.
 */
public final class SchedulingProbe {

  static final String OBJECT_NAME = "dev.kernelweave:type=Scheduling";

  private SchedulingProbe() {}

  public static void main(String[] args) throws Exception {
    Runtime.getRuntime().addShutdownHook(new Thread(SchedulingProbe::print));
    Class.forName("dev.kernelweave.kernels.WorkloadMain").getMethod("main", String[].class).invoke(null, (Object) args);
  }

  private static void print() {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName(OBJECT_NAME);
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!server.isRegistered(name) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      if (!server.isRegistered(name)) {
        System.out.println("mbean missing");
        return;
      }
      for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
        System.out.println("mbean " + a.getName() + " " + server.getAttribute(name, a.getName()));
      }
    } catch (Exception e) {
      System.out.println("mbean failed " + e);
    }
  }
}
