package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.io.InputStream;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * Small programs for {@link JournalLifecycleTest}, the way short samples are written: a context, a
 * buffer, a few kernels, a read-back, then one of several endings.
 *
 * <p>Usage: {@code JournalProgram
 * exit-at-once|exit-after-2s|exit-from-thread|busy|read-back-loop|properties|in-shutdown-hook|halt|timezone [launches]}. Every
 * mode ends its work with {@code cuMemFree}, except {@code busy}, which launches until it is killed
 * and prints {@code launched N} once it has made {@code launches} launches, and {@code halt}, which
 * halts the JVM 50 ms after its last launch. {@code in-shutdown-hook} makes half of its launches
 * and the read-back in a shutdown hook of its own, after the agent's ordinary hooks had time to run;
 * {@code timezone} prints {@code user.timezone} once the program has read the default time zone;
 * {@code read-back-loop} makes {@code launches} rounds of two launches and a read-back;
 * {@code exit-after-2s} waits 2 s between its launches and its {@code cuMemFree}, long enough for
 * the journal to have built its queue.
 */
public final class JournalProgram {

  private static final int N = 1024;

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    int launches = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Properties before = (Properties) System.getProperties().clone();
    CUfunction axpb = chainStep();
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    CUdeviceptr in = new CUdeviceptr();
    CUdeviceptr out = new CUdeviceptr();
    cuMemAlloc(in, 4L * N);
    cuMemAlloc(out, 4L * N);
    cuMemcpyHtoD(in, Pointer.to(new float[N]), 4L * N);
    switch (mode) {
      case "exit-at-once" -> {
        launch(axpb, out, in, launches);
        finish(in, out);
      }
      case "exit-after-2s" -> {
        launch(axpb, out, in, launches);
        sleep(2000);
        finish(in, out);
      }
      case "exit-from-thread" -> {
        Thread exiter = new Thread(() -> {
          sleep(300);
          System.exit(0);
        });
        launch(axpb, out, in, launches);
        exiter.start();
        while (true) {
          launch(axpb, out, in, 1);
        }
      }
      case "busy" -> {
        launch(axpb, out, in, launches);
        System.out.println("launched " + launches);
        System.out.flush();
        while (true) {
          launch(axpb, out, in, 1);
        }
      }
      case "read-back-loop" -> {
        // Two launches and a read-back a round: a long program with no run of launches.
        float[] result = new float[N];
        double sum = 0;
        for (int round = 0; round < launches; round++) {
          launch(axpb, out, in, 2);
          cuMemcpyDtoH(Pointer.to(result), out, 4L * N);
          sum += result[round % N];
        }
        System.out.println("sum " + sum);
        finish(in, out);
      }
      case "properties" -> {
        launch(axpb, out, in, launches);
        sleep(2000);
        finish(in, out);
        System.out.println(changes(before, System.getProperties()));
        System.out.println("disk space checker threads: " + Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().contains("disk~space~checker")).count());
      }
      case "in-shutdown-hook" -> {
        launch(axpb, out, in, launches);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          sleep(300);
          cuCtxSetCurrent(context);
          launch(axpb, out, in, launches);
          finish(in, out);
        }));
      }
      case "halt" -> {
        launch(axpb, out, in, launches);
        sleep(2000); // the journal's writer has started
        launch(axpb, out, in, launches);
        float[] result = new float[N];
        cuMemcpyDtoH(Pointer.to(result), out, 4L * N);
        cuMemFree(in);
        cuMemFree(out);
        System.out.println("freed");
        System.out.flush();
        sleep(50);
        Runtime.getRuntime().halt(0);
      }
      case "timezone" -> {
        launch(axpb, out, in, launches);
        sleep(2000); // Chronicle has started
        java.util.TimeZone.getDefault();
        finish(in, out);
        System.out.println("user.timezone=" + System.getProperty("user.timezone"));
      }
      default -> throw new IllegalArgumentException(mode);
    }
  }

  /** The primary context of device 0 and the chain workload's kernel, as the workloads get them. */
  private static CUfunction chainStep() throws Exception {
    JCudaDriver.setExceptionsEnabled(true);
    cuInit(0);
    CUdevice device = new CUdevice();
    cuDeviceGet(device, 0);
    CUcontext context = new CUcontext();
    cuDevicePrimaryCtxRetain(context, device);
    cuCtxSetCurrent(context);
    byte[] ptx;
    try (InputStream in = JournalProgram.class.getClassLoader().getResourceAsStream("ptx/chain.ptx")) {
      byte[] text = in.readAllBytes();
      ptx = java.util.Arrays.copyOf(text, text.length + 1);
    }
    CUmodule module = new CUmodule();
    cuModuleLoadData(module, ptx);
    CUfunction f = new CUfunction();
    cuModuleGetFunction(f, module, "chain_step");
    return f;
  }

  private static void launch(CUfunction f, CUdeviceptr out, CUdeviceptr in, int times) {
    for (int k = 0; k < times; k++) {
      cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, null, Pointer.to(Pointer.to(out),
          Pointer.to(new int[] {N}), Pointer.to(new int[] {k}), Pointer.to(new int[] {1})), null);
    }
  }

  private static void finish(CUdeviceptr in, CUdeviceptr out) {
    float[] result = new float[N];
    cuMemcpyDtoH(Pointer.to(result), out, 4L * N);
    System.out.println("checksum " + SmokePrograms.checksum(result));
    cuMemFree(in);
    cuMemFree(out);
  }

  /** The system properties added, removed or changed, or "properties unchanged". */
  static String changes(Properties before, Properties after) {
    Map<String, String> diff = new TreeMap<>();
    for (String name : after.stringPropertyNames()) {
      if (!after.getProperty(name).equals(before.getProperty(name))) {
        diff.put(name, after.getProperty(name));
      }
    }
    for (String name : before.stringPropertyNames()) {
      if (after.getProperty(name) == null) {
        diff.put(name, "(removed)");
      }
    }
    return diff.isEmpty() ? "properties unchanged" : "properties changed: " + diff;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
