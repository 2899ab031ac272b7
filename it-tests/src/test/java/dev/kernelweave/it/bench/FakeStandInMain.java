package dev.kernelweave.it.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A workload entry point on a machine without a GPU: it finds no CUDA device unless the first
 * folder of {@code LD_LIBRARY_PATH} holds a {@code libcuda.so.1} (the stand-in driver), and then
 * runs as {@link FakeWorkloadMain}. Where that folder also holds a file {@code differs}, the run
 * with the (fake) agent reports another checksum.
 */
public final class FakeStandInMain {
  private FakeStandInMain() {}

  public static void main(String[] args) throws Exception {
    String libraries = System.getenv("LD_LIBRARY_PATH");
    Path first = libraries == null || libraries.isEmpty() ? null : Path.of(libraries.split(File.pathSeparator)[0]);
    if (first == null || !Files.isRegularFile(first.resolve("libcuda.so.1"))) {
      System.out.println("no CUDA device found");
      System.exit(WorkloadRunner.NO_GPU);
    }
    if (Files.exists(first.resolve("differs")) && System.getProperty(FakeAgent.OPTIONS_PROPERTY) != null) {
      System.out.println("sizes: rl-sim n=64");
      System.out.println("KW-RESULT {\"name\":\"" + args[0] + "\",\"variant\":\"serial\",\"size\":\"check\","
          + "\"sizes\":\"sizes: rl-sim n=64\",\"ms\":[1.0],\"checksum\":\"" + FakeWorkloadMain.sha256("other")
          + "\",\"reference\":\"ok\"}");
      System.exit(0);
    }
    FakeWorkloadMain.main(args);
  }
}
