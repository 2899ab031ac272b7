package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProjectLayoutTest {

  @Test
  void findsTheCheckoutFromTheModuleFolder() {
    ProjectLayout layout = ProjectLayout.discover();
    assertTrue(Files.isRegularFile(layout.root().resolve("it-tests/pom.xml")), layout.root().toString());
    assertEquals(layout.root().resolve("agent/target/kernelweave-agent.jar"), layout.agentJar());
    assertEquals(layout.root().resolve("samples/journal"), layout.sampleJournal());
    assertEquals(layout.root().resolve("it-tests/results"), layout.resultsDir());
  }

  @Test
  void workloadJvmsGetTheKernelsAndJCudaButNothingOfTheAgent() {
    List<Path> entries =
        Arrays.stream(ProjectLayout.workloadClassPath().split(File.pathSeparator)).map(Path::of).toList();
    assertEquals(1, entries.stream().filter(ProjectLayout::isWorkloads).count(), entries.toString());
    assertTrue(entries.stream().anyMatch(e -> e.getFileName().toString().contains("jcuda-12")), entries.toString());
    assertTrue(entries.stream().anyMatch(e -> e.getFileName().toString().contains("jcublas-12")), entries.toString());
    assertTrue(entries.stream().allMatch(e -> ProjectLayout.isWorkloads(e) || ProjectLayout.isJCuda(e)), entries.toString());
    for (Path e : entries) {
      String name = e.getFileName().toString();
      assertFalse(
          name.contains("agent") || name.contains("interceptor") || name.contains("scheduler")
              || name.contains("byte-buddy") || name.contains("chronicle") || e.toString().contains("test-classes"),
          e.toString());
    }
  }

  @Test
  void recognisesTheJarsCopiedToTargetLib() {
    assertTrue(ProjectLayout.isWorkloads(Path.of("it-tests/target/lib/dev.kernelweave.kernelweave-kernels-0.1.0-SNAPSHOT.jar")));
    assertTrue(ProjectLayout.isWorkloads(Path.of("/w/kernels/target/classes")));
    assertFalse(ProjectLayout.isWorkloads(Path.of("it-tests/target/lib/dev.kernelweave.kernelweave-agent-0.1.0-SNAPSHOT.jar")));
    assertTrue(ProjectLayout.isJCuda(Path.of("it-tests/target/lib/org.jcuda.jcuda-natives-12.6.0-linux-x86_64.jar")));
    assertTrue(ProjectLayout.isJCuda(Path.of("/home/u/.m2/repository/org/jcuda/jcublas/12.6.0/jcublas-12.6.0.jar")));
    assertFalse(ProjectLayout.isJCuda(Path.of("it-tests/target/lib/net.bytebuddy.byte-buddy-1.18.17.jar")));
  }
}
