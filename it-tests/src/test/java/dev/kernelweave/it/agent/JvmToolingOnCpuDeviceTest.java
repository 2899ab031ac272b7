package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JVM's own tools on a real run: {@code rl-sim} with the packaged agent over the stand-in CUDA
 * driver, recorded by JFR from the command line ({@code -XX:StartFlightRecording}) and probed over
 * JMX as it exits. Both must tell what the run's journal tells ({@code inspect stats}).
 */
class JvmToolingOnCpuDeviceTest {

  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  private static final Pattern STAT = Pattern.compile("^ *([a-z][a-z -]*[a-z]) +(\\d+)$");

  private static Path recording;
  private static ChildJvm.Result run;
  private static Map<String, Long> stats;

  @BeforeAll
  static void runRlSimRecordedAndProbed() throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    Path dir = Files.createTempDirectory("kw-jvm-tooling");
    recording = dir.resolve("rl-sim.jfr");
    Path journal = dir.resolve("journal");
    Map<String, String> env = Map.of(
        "LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(),
        "KW_CPU_DEVICE_SEED", "1",
        "JDK_JAVA_OPTIONS", "-XX:StartFlightRecording=filename=" + recording + ",dumponexit=true");
    run = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "journal=" + journal, List.of(), env,
        SchedulingProbe.class.getName(), "rl-sim", "--size", "check", "--warmup", "0", "--reps", "1");
    assertEquals(0, run.exitCode(), () -> "stdout:\n" + run.stdout() + "\nstderr:\n" + run.stderr());
    assertTrue(run.stdout().contains("\"reference\":\"ok\""), run.stdout());

    ChildJvm.Result printed = ChildJvm.command("inspect", "stats", journal.toString());
    assertEquals(0, printed.exitCode(), printed.stderr());
    stats = new HashMap<>();
    for (String line : printed.stdout().split("\n")) {
      Matcher m = STAT.matcher(line);
      if (m.matches()) {
        stats.put(m.group(1), Long.parseLong(m.group(2)));
      }
    }
    stats.put("calls", Long.parseLong(printed.stdout().replaceAll("(?s).*\n(\\d+) calls from .*", "$1")));
  }

  private static long stat(String name) {
    return stats.getOrDefault(name, 0L);
  }

  private static List<RecordedEvent> events(String type) throws Exception {
    return RecordingFile.readAllEvents(recording).stream()
        .filter(e -> e.getEventType().getName().equals(type)).collect(Collectors.toList());
  }

  @Test
  void theRecordingHasALaunchEventForEveryCallThatPutWorkOnTheGpu() throws Exception {
    List<RecordedEvent> launches = events("kernelweave.Launch");
    long deviceWork = stat("launch") + stat("copy host to device") + stat("copy device to host")
        + stat("copy device to device") + stat("memset") + stat("blas");
    assertTrue(stat("launch") > 100, "rl-sim launches kernels: " + stats);
    assertEquals(deviceWork, launches.size(), "one event per launch, copy and memset in the journal");
    List<RecordedEvent> kernels = launches.stream().filter(e -> !e.getString("kernel").isEmpty()).toList();
    assertEquals(stat("launch"), kernels.size());
    assertTrue(kernels.stream().allMatch(e -> e.getString("grid").matches("[1-9]\\d*,1,1")
        && e.getString("block").matches("[1-9]\\d*,1,1")), "rl-sim's one-dimensional launches");
    assertTrue(kernels.stream().map(e -> e.getString("kernel")).collect(Collectors.toSet())
        .containsAll(List.of("rl_policy", "rl_step", "rl_reward")));
    assertEquals(stat("streams used"),
        launches.stream().mapToInt(e -> e.getInt("agentStream")).filter(s -> s >= 0).distinct().count());
    assertEquals(stat("cross-stream waits"), launches.stream().mapToLong(e -> e.getInt("crossStreamWaits")).sum());
    assertTrue(launches.stream().allMatch(e -> e.getDuration("callDuration").toNanos() > 0));
    // A held launch is recorded where it is issued: on the program's thread, or on the agent's
    // deadline thread when the host made no call for a while after it.
    assertTrue(launches.stream().allMatch(e -> e.getThread().getJavaName().equals("main")
        || e.getThread().getJavaName().equals("kernelweave-held-launch-deadline")));
  }

  @Test
  void theRecordingHasAHostWaitEventForEveryWaitWithWhatWasWaitedFor() throws Exception {
    List<RecordedEvent> waits = events("kernelweave.HostWait");
    assertTrue(stat("host waits") > 0, "rl-sim reads back each step: " + stats);
    assertEquals(stat("host waits"), waits.size());
    List<RecordedEvent> readBacks = waits.stream().filter(e -> e.getString("call").startsWith("cuMemcpyDtoH")).toList();
    assertFalse(readBacks.isEmpty(), waits.toString());
    assertTrue(readBacks.stream().allMatch(e -> e.getString("buffers").matches("#\\d+\\+0x[0-9a-f]+\\[\\d+\\] R.*")
        && e.getInt("allocation") > 0 && e.getDuration("blocked").toNanos() > 0), readBacks.toString());
    assertTrue(readBacks.stream().allMatch(e -> e.getStackTrace().getFrames().stream()
        .anyMatch(f -> f.getMethod().getType().getName().startsWith("dev.kernelweave.kernels"))),
        "the stack shows where the program waited");
  }

  @Test
  void jfrPrintShowsTheEvents() throws Exception {
    Path jfr = Path.of(System.getProperty("java.home"), "bin", "jfr");
    assumeTrue(Files.isExecutable(jfr), "no jfr tool in " + jfr.getParent() + ": skipped");
    Process p = new ProcessBuilder(jfr.toString(), "print", "--events", "kernelweave.Launch", recording.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor());
    assertTrue(out.contains("kernelweave.Launch {"), out.substring(0, Math.min(out.length(), 2000)));
    assertTrue(out.contains("kernel = \"rl_step\""), "kernel names");
    assertTrue(out.contains("agentStream = "), "the agent's stream");
  }

  @Test
  void theMBeanCountsWhatTheJournalHolds() {
    Map<String, Long> mbean = new HashMap<>();
    for (String line : run.stdout().split("\n")) {
      if (line.startsWith("mbean ")) {
        String[] parts = line.split(" ");
        assertEquals(3, parts.length, line);
        mbean.put(parts[1], Long.parseLong(parts[2]));
      }
    }
    assertFalse(mbean.isEmpty(), run.stdout());
    assertEquals(stat("calls"), mbean.get("Calls"));
    assertEquals(stat("launch"), mbean.get("Launches"));
    assertEquals(stat("sync"), mbean.get("Synchronizations"));
    assertEquals(stat("streams used"), mbean.get("StreamsUsed"));
    assertEquals(stat("cross-stream waits"), mbean.get("CrossStreamWaits"));
    assertEquals(stat("events recorded"), mbean.get("EventsRecorded"));
    assertEquals(stat("host waits"), mbean.get("HostWaits"));
    assertEquals(stat("host waits narrowed"), mbean.get("HostWaitsNarrowed"));
    assertEquals(stat("barriers"), mbean.get("Barriers"));
    assertTrue(mbean.get("CrossStreamWaits") > 0, "rl-sim's environments ran on several streams: " + mbean);
  }
}
