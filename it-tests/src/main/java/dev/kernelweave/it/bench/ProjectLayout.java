package dev.kernelweave.it.bench;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where things are in a built checkout: the agent jar, the sample journal, the results folder, and
 * the class path the workload JVMs need.
 *
 * @param root the checkout's top folder (the one holding {@code agent/} and {@code it-tests/})
 */
public record ProjectLayout(Path root) {

  /** The agent jar, relative to the checkout. */
  public static final String AGENT_JAR = "agent/target/kernelweave-agent.jar";

  /** The small journal shipped with the project, relative to the checkout. */
  public static final String SAMPLE_JOURNAL = "samples/journal";

  /** Where the benchmark writes its results, relative to the checkout. */
  public static final String RESULTS = "it-tests/results";

  /**
   * Finds the checkout from the working directory or, failing that, from where this class was
   * loaded (so the benchmark can be started from any folder).
   */
  public static ProjectLayout discover() {
    List<Path> starts = new ArrayList<>();
    starts.add(Path.of("").toAbsolutePath());
    codeLocation().ifPresent(starts::add);
    for (Path start : starts) {
      for (Path dir = start; dir != null; dir = dir.getParent()) {
        if (Files.isRegularFile(dir.resolve("it-tests/pom.xml")) && Files.isDirectory(dir.resolve("agent"))) {
          return new ProjectLayout(dir);
        }
      }
    }
    return new ProjectLayout(Path.of("").toAbsolutePath());
  }

  private static Optional<Path> codeLocation() {
    try {
      CodeSource source = ProjectLayout.class.getProtectionDomain().getCodeSource();
      return source == null ? Optional.empty() : Optional.of(Path.of(source.getLocation().toURI()));
    } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  public Path agentJar() {
    return root.resolve(AGENT_JAR);
  }

  public Path sampleJournal() {
    return root.resolve(SAMPLE_JOURNAL);
  }

  public Path resultsDir() {
    return root.resolve(RESULTS);
  }

  /**
   * The class path for workload JVMs, taken from this JVM's own: the workloads ({@code kernels})
   * and the JCuda jars, and nothing of the agent, so that the agent's classes come only from the
   * agent jar. Empty where this JVM does not have the workloads on its class path.
   */
  public static String workloadClassPath() {
    // Surefire starts tests from a manifest-only jar and keeps the real class path here.
    String own = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""));
    List<String> kept = new ArrayList<>();
    boolean hasWorkloads = false;
    for (String entry : own.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry);
      hasWorkloads |= isWorkloads(path);
      if (isWorkloads(path) || isJCuda(path)) {
        kept.add(path.toAbsolutePath().toString());
      }
    }
    return hasWorkloads ? String.join(File.pathSeparator, kept) : "";
  }

  /** The kernels module: its jar (plain or as copied to {@code target/lib}) or its classes. */
  static boolean isWorkloads(Path entry) {
    String name = fileName(entry);
    String path = entry.toString().replace('\\', '/');
    return name.startsWith("kernelweave-kernels")
        || name.startsWith("dev.kernelweave.kernelweave-kernels")
        || path.endsWith("kernels/target/classes")
        || path.endsWith("kernels/target/classes/");
  }

  /** A jar of the {@code org.jcuda} group, from the local repository or {@code target/lib}. */
  static boolean isJCuda(Path entry) {
    return fileName(entry).startsWith("org.jcuda.") || entry.toString().replace('\\', '/').contains("/org/jcuda/");
  }

  private static String fileName(Path entry) {
    Path name = entry.getFileName();
    return name == null ? "" : name.toString();
  }
}
