package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged agent where JCuda is not on the system class path but in a child class loader (an
 * application server, a plugin) or nested in a fat jar: the advice must link that loader's JCuda,
 * and the calls must be scheduled and journaled as usual. Runs a workload over the stand-in driver.
 */
class AgentWithJCudaInChildLoaderTest {

  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  private static final Pattern CHECKSUM = Pattern.compile("\"checksum\":\"([0-9a-f]+)\"");
  private static final String WORKLOAD = "dev.kernelweave.kernels.WorkloadMain";
  private static final String[] ARGS = {"branches", "--size", "check", "--warmup", "0", "--reps", "1"};

  private static String java;
  private static String reference;
  /** Only the launcher: neither JCuda nor the program is on the system class path. */
  private static String launcherOnly;
  /** JCuda's jars and the program's, for the child loader. */
  private static List<String> programJars;

  @BeforeAll
  static void referenceRunWithoutTheAgent() throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    java = ChildJvm.java(System.getProperty("java.home"));
    reference = checksum(ChildJvm.run(java, null, List.of(), environment(), WORKLOAD, ARGS));
    Path dir = Files.createTempDirectory("kw-launcher");
    String launcher = ChildLoaderLauncher.class.getName().replace('.', '/');
    for (String name : new String[] {launcher + ".class", launcher + "$NestedJarLoader.class",
        launcher + "$NestedJarLoader$1.class", launcher + "$NestedJarLoader$1$1.class"}) {
      Path target = dir.resolve(name);
      Files.createDirectories(target.getParent());
      try (var in = ChildLoaderLauncher.class.getClassLoader().getResourceAsStream(name)) {
        Files.copy(in, target);
      }
    }
    launcherOnly = dir.toString();
    programJars = new ArrayList<>();
    for (String entry : ChildJvm.programClassPath(List.of()).split(File.pathSeparator)) {
      if (!Path.of(entry).getFileName().toString().equals("test-classes")) {
        programJars.add(entry);
      }
    }
  }

  @Test
  void jcudaInAChildUrlClassLoaderIsScheduledAndJournaled() throws Exception {
    Path journal = Files.createTempDirectory("kw-child-loader").resolve("journal");
    List<String> args = new ArrayList<>(List.of("--urls", String.join(File.pathSeparator, programJars), WORKLOAD));
    args.addAll(List.of(ARGS));
    ChildJvm.Result r = ChildJvm.runOnClassPath(java, "log=debug,journal=" + journal, launcherOnly, environment(),
        ChildLoaderLauncher.class.getName(), args.toArray(new String[0]));
    assertScheduledWithTheReferenceBytes(r, journal);
  }

  @Test
  void jcudaNestedInAFatJarIsScheduledAndJournaled() throws Exception {
    Path fat = Files.createTempDirectory("kw-fat").resolve("app.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(fat))) {
      for (String jar : programJars) {
        Path p = Path.of(jar);
        out.putNextEntry(new JarEntry("lib/" + p.getFileName() + (Files.isDirectory(p) ? ".jar" : "")));
        if (Files.isDirectory(p)) {
          writeJar(p, out);
        } else {
          Files.copy(p, out);
        }
        out.closeEntry();
      }
    }
    Path journal = Files.createTempDirectory("kw-nested").resolve("journal");
    List<String> args = new ArrayList<>(List.of("--nested", fat.toString(), WORKLOAD));
    args.addAll(List.of(ARGS));
    ChildJvm.Result r = ChildJvm.runOnClassPath(java, "log=debug,journal=" + journal, launcherOnly, environment(),
        ChildLoaderLauncher.class.getName(), args.toArray(new String[0]));
    assertScheduledWithTheReferenceBytes(r, journal);
  }

  private static void assertScheduledWithTheReferenceBytes(ChildJvm.Result r, Path journal) throws Exception {
    assertEquals(reference, checksum(r), r.stderr());
    assertTrue(r.stderr().contains("interceptor classes added to"), r.stderr());
    assertTrue(r.stderr().contains("instrumented jcuda.driver.JCudaDriver"), r.stderr());
    assertFalse(r.stderr().contains("warning"), r.stderr());
    ChildJvm.Result tail = ChildJvm.command("inspect", "tail", journal.toString());
    assertEquals(0, tail.exitCode(), tail.stderr());
    long scheduledLaunches = tail.stdout().lines()
        .filter(l -> l.contains(" cuLaunchKernel ") && l.matches(".* s[0-9]+ .*")).count();
    assertTrue(scheduledLaunches > 0, "launches on the agent's streams:\n" + tail.stdout());
    ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
    assertEquals(0, stats.exitCode(), stats.stderr());
    Matcher streams = Pattern.compile("streams used\\s+(\\d+)").matcher(stats.stdout());
    assertTrue(streams.find(), stats.stdout());
    assertTrue(Integer.parseInt(streams.group(1)) > 1, "independent branches on several streams:\n" + stats.stdout());
    System.out.println("[child loader] " + scheduledLaunches + " launches scheduled, "
        + streams.group(1) + " streams used");
  }

  private static void writeJar(Path classes, OutputStream target) throws IOException {
    JarOutputStream jar = new JarOutputStream(target);
    try (var files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
        Files.copy(f, jar);
        jar.closeEntry();
      }
    }
    jar.finish();
  }

  private static Map<String, String> environment() {
    return Map.of("LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", "1");
  }

  private static String checksum(ChildJvm.Result r) {
    assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    Matcher m = CHECKSUM.matcher(r.stdout());
    assertTrue(m.find(), r.stdout());
    return m.group(1);
  }
}
