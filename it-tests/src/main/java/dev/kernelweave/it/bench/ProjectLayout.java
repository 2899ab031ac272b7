package dev.kernelweave.it.bench;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

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
   * The class path for workload JVMs: the workloads ({@code kernels}) and the JCuda jars, and
   * nothing of the agent, so that the agent's classes come only from the agent jar. Taken from the
   * first of these that holds the workloads: this JVM's class path, the class loaders that loaded
   * this class (the JUnit console launcher's {@code -cp}), the jars in {@code
   * it-tests/target/lib}. Empty where none does.
   */
  public static String workloadClassPath() {
    List<Path> lib = new ArrayList<>();
    try (Stream<Path> jars = Files.list(discover().root().resolve("it-tests/target/lib"))) {
      jars.sorted().forEach(lib::add);
    } catch (IOException e) {
      // No target/lib: nothing to take from there.
    }
    for (List<Path> entries : List.of(ownClassPath(), loaderClassPath(), lib)) {
      List<String> kept = new ArrayList<>();
      for (Path entry : entries) {
        if (isWorkloads(entry) || isJCuda(entry)) {
          kept.add(entry.toAbsolutePath().toString());
        }
      }
      if (entries.stream().anyMatch(ProjectLayout::isWorkloads)) {
        return String.join(File.pathSeparator, kept);
      }
    }
    return "";
  }

  private static List<Path> ownClassPath() {
    // Surefire starts tests from a manifest-only jar and keeps the real class path here.
    String own = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""));
    return Arrays.stream(own.split(File.pathSeparator)).filter(e -> !e.isBlank()).map(Path::of).toList();
  }

  private static List<Path> loaderClassPath() {
    List<Path> entries = new ArrayList<>();
    for (ClassLoader loader = ProjectLayout.class.getClassLoader(); loader != null; loader = loader.getParent()) {
      if (loader instanceof URLClassLoader urls) {
        for (URL url : urls.getURLs()) {
          try {
            entries.add(Path.of(url.toURI()));
          } catch (URISyntaxException | IllegalArgumentException | FileSystemNotFoundException e) {
            // Not a file: no use to another JVM.
          }
        }
      }
    }
    return entries;
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
