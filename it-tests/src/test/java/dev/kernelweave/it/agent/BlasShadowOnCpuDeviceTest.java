package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packaged agent on a JCublas2 program that sets pointer mode DEVICE, other math and atomics
 * modes and a workspace ({@link BlasShadowProgram}), over the stand-in driver and cuBLAS: the
 * stand-in's results depend on every one of those settings and on no two streams sharing a
 * workspace, and it counts the cuBLAS calls made, the agent's included
 * ({@code KW_CPU_CUBLAS_STATS}).
 */
class BlasShadowOnCpuDeviceTest {

  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  private static final Pattern CALLS = Pattern.compile("cpu-device cublas calls:(.*)");
  private static final Pattern SGEMM_STREAM = Pattern.compile(" cublasSgemm s(\\d+) ");
  private static final int GEMMS = 24;
  /** How long the program lives on after its work, so that the agent's journal has opened (it opens in the background). */
  private static final String JOURNAL_START_MILLIS = "2000";

  @Test
  void shadowHandlesGiveTheApplicationsResultsWithoutRepointingAnyHandle() throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcublas.so.12")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), environment(1), BlasShadowProgram.class.getName(),
        Integer.toString(GEMMS));
    assertEquals(0, plain.exitCode(), plain.stdout() + plain.stderr());
    assertEquals(GEMMS + 2, plain.observable().size(), plain.stdout());
    assertTrue(plain.stdout().contains("result handle pointer mode 1, stream cudaStream_t[nativePointer=0]"),
        plain.stdout());
    assertEquals(0, calls(plain).get("cublasSetStream_v2"), plain.stderr());

    for (int seed = 1; seed <= 3; seed++) {
      Path journal = Files.createTempDirectory("kw-blas").resolve("journal");
      ChildJvm.Result agent = ChildJvm.run(java, "journal=" + journal, List.of(), environment(seed),
          BlasShadowProgram.class.getName(), Integer.toString(GEMMS), "16", JOURNAL_START_MILLIS);
      assertEquals(0, agent.exitCode(), agent.stdout() + agent.stderr());
      assertEquals(plain.observable(), agent.observable(), "seed " + seed + ": " + agent.stderr());

      Map<String, Long> calls = calls(agent);
      long shadows = calls.get("cublasCreate_v2") - 1;
      assertEquals(2L * GEMMS, calls.get("cublasSgemm_v2"), agent.stderr());
      assertTrue(shadows >= 2, "the routines ran on shadows of several streams: " + agent.stderr());
      assertEquals(shadows, calls.get("cublasSetStream_v2"), "one cublasSetStream per shadow, none per call: "
          + agent.stderr());
      assertEquals(calls.get("cublasCreate_v2"), calls.get("cublasDestroy_v2"), "shadows go with the handle");

      ChildJvm.Result tail = ChildJvm.command("inspect", "tail", runJournal(journal).toString());
      assertEquals(0, tail.exitCode(), tail.stderr());
      Set<String> sgemmStreams = new HashSet<>();
      int sgemms = 0;
      for (String line : tail.stdout().split("\n")) {
        assertTrue(!line.contains("cublasSetStream"), "the application set no stream: " + line);
        Matcher m = SGEMM_STREAM.matcher(line);
        if (m.find()) {
          sgemms++;
          sgemmStreams.add(m.group(1));
        }
      }
      assertEquals(2 * GEMMS, sgemms, tail.stdout());
      assertTrue(sgemmStreams.size() >= 2, "sgemm on the agent's streams: " + sgemmStreams);
    }
  }

  /** The journal of the run: a directory of its own under the one given, where the agent makes one. */
  private static Path runJournal(Path journal) throws IOException {
    try (Stream<Path> entries = Files.list(journal)) {
      List<Path> runs = entries.filter(Files::isDirectory).toList();
      return runs.size() == 1 ? runs.get(0) : journal;
    }
  }

  private static Map<String, String> environment(int seed) {
    return Map.of("LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED",
        Integer.toString(seed), "KW_CPU_CUBLAS_STATS", "1");
  }

  /** The stand-in cuBLAS's call counts, printed at exit. */
  private static Map<String, Long> calls(ChildJvm.Result r) {
    Matcher m = CALLS.matcher(r.stderr());
    assertTrue(m.find(), "no call counts on stderr: " + r.stderr());
    Map<String, Long> counts = new HashMap<>();
    for (String pair : m.group(1).trim().split(" ")) {
      int eq = pair.indexOf('=');
      counts.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
    }
    return counts;
  }
}
