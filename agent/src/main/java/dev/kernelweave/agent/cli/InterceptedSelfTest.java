package dev.kernelweave.agent.cli;

import dev.kernelweave.interceptor.selftest.PlayerFiles;
import dev.kernelweave.interceptor.selftest.ScriptedPrograms;
import dev.kernelweave.selftest.Mutant;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code selftest --gpu}: the intercepted fuzz on this machine's GPU. Generated programs are written
 * as one script and played by the fuzz player, a plain JCuda application, in two child JVMs whose
 * class path holds the player (copied out of this jar) and JCuda but nothing of the agent's: once
 * serially without the agent (every call on the legacy stream: the reference), once as written
 * with this jar as {@code -javaagent}. Every program must observe the same bytes, return codes,
 * query answers and callback arguments in both.
 */
final class InterceptedSelfTest {

  /** The most one child JVM may take: 300 programs take seconds on a GPU. */
  private static final long CHILD_MINUTES = 30;
  /** Lines of a failed child's stderr shown. */
  private static final int TAIL_LINES = 30;

  /**
   * What to run.
   *
   * @param classPath the JCuda jars for the player, as for {@code java -cp}; null: this JVM's class
   *     path without the agent jar
   * @param mutant a deliberately broken scheduler for the agent, or {@link Mutant#NONE}
   * @param streams the agent's {@code streams=}, or null for its default
   */
  record Settings(long seed, int programs, boolean graphs, Integer streams, Mutant mutant, String classPath) {}

  private InterceptedSelfTest() {}

  static int run(Settings s, PrintStream out, PrintStream err) {
    List<String> jcuda = s.classPath() != null ? List.of(s.classPath().split(File.pathSeparator))
        : withoutAgent(System.getProperty("java.class.path"));
    Optional<String> missing = missingJCuda(jcuda);
    if (missing.isPresent()) {
      err.println("kernelweave selftest --gpu: " + missing.get() + " is not on the class path (run java -cp "
          + "kernelweave-agent.jar:jcuda-12.6.0.jar:jcuda-natives-12.6.0-linux-x86_64.jar:jcublas-12.6.0.jar:"
          + "jcublas-natives-12.6.0-linux-x86_64.jar dev.kernelweave.agent.cli.Main selftest --gpu, "
          + "or name those jars with --class-path)");
      return SelfTestCommand.UNAVAILABLE;
    }
    Path agentJar = agentJar();
    if (agentJar == null) {
      err.println("kernelweave selftest --gpu: it runs from kernelweave-agent.jar, the agent the programs "
          + "run with, not from " + codeSource() + "; build the jar (mvn -DskipTests package) and run it");
      return SelfTestCommand.UNAVAILABLE;
    }
    Path dir = null;
    boolean keep = false;
    try {
      dir = Files.createTempDirectory("kernelweave-selftest");
      PlayerFiles.Extracted player = PlayerFiles.extract(dir.resolve("player"));
      ScriptedPrograms.Programs programs = ScriptedPrograms.programs(dir, s.programs(), s.seed());
      // Engaged from the first call: with the default, engage=auto, such small programs would run as written.
      String agentOptions = "journal=" + dir.resolve("journal") + ",engage=at-once," + agentOptions(s);
      out.printf(Locale.ROOT, "selftest --gpu: seed %d, %d programs and %d played beside others, agent %s, %s%n",
          s.seed(), s.programs(), programs.byName().size() - s.programs(), agentOptions(s),
          s.mutant() == Mutant.NONE ? "the real scheduler" : "mutant " + s.mutant().option() + " (it should be caught)");
      String classPath = player.classes() + File.pathSeparator + String.join(File.pathSeparator, jcuda);

      Child serial = play(dir, "serial", classPath, List.of(), player.arguments(programs.script(), true));
      if (serial.exitCode() == PlayerFiles.NO_GPU) {
        err.println("kernelweave selftest --gpu: no GPU here (" + reason(serial.stdout()) + "); use --sim");
        return SelfTestCommand.UNAVAILABLE;
      }
      if (!ranCleanly(out, "without the agent", "serially", serial, "(this machine's CUDA, not the agent)",
          "the script is kept in " + dir)) {
        keep = true;
        return Main.FAILED;
      }

      List<String> jvm = new ArrayList<>();
      if (s.mutant() != Mutant.NONE) {
        jvm.add("-D" + Mutant.PROPERTY + "=" + s.mutant().option());
      }
      jvm.add("-javaagent:" + agentJar + "=" + agentOptions);
      Child agent = play(dir, "agent", classPath, jvm, player.arguments(programs.script(), false));
      if (!ranCleanly(out, "with the agent", "as written", agent, "(without it: 0)",
          "FAILED: the agent changed how the programs ran; the script and journal are kept in " + dir)) {
        keep = true;
        return Main.FAILED;
      }
      Optional<String> difference = ScriptedPrograms.firstDifference(serial.lines(), agent.lines(),
          programs.byName(), programs.printChannels());
      if (difference.isPresent()) {
        keep = true;
        out.println();
        out.println("first program that observed otherwise (each line: program, call #, what it observed):");
        out.print(difference.get().indent(2));
        out.println("FAILED: with the agent, a program observed what it does not observe serially; the script and "
            + "journal are kept in " + dir);
        return Main.FAILED;
      }
      out.printf(Locale.ROOT, "OK: all %d programs observed the same with the agent as without it%n",
          programs.byName().size());
      return 0;
    } catch (IOException e) {
      err.println("kernelweave selftest --gpu: " + Main.firstLine(e));
      return Main.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("kernelweave selftest --gpu: interrupted");
      return Main.FAILED;
    } finally {
      if (dir != null && !keep) {
        deleteQuietly(dir);
      }
    }
  }

  /**
   * Says how a run of the programs went: {@code run}, {@code how}, its observations; or, where the
   * child did not end well, how it ended ({@code whose} exit code), the end of its stderr, and what is
   * kept ({@code conclusion}). False for a child that did not end well.
   */
  private static boolean ranCleanly(PrintStream out, String run, String how, Child child, String whose,
      String conclusion) {
    if (child.exitCode() != 0) {
      out.println(run + " the programs ended with exit code " + child.exitCode() + " " + whose + "; its stderr ends:");
      out.print(tail(child.stderr()).indent(2));
      out.println(conclusion);
      return false;
    }
    out.printf(Locale.ROOT, "%s, %s: %d observations, %.1f s%n", run, how, child.lines().size(), child.seconds());
    return true;
  }

  /** The agent's options as asked (the run adds its journal): graphs, and lanes where given. */
  static String agentOptions(Settings s) {
    return "graphs=" + (s.graphs() ? "on" : "off") + (s.streams() == null ? "" : ",streams=" + s.streams());
  }

  /** What a child printed and how it ended. */
  private record Child(int exitCode, String stdout, String stderr, double seconds) {
    List<String> lines() {
      return List.of(stdout.split("\n"));
    }
  }

  private static Child play(Path dir, String name, String classPath, List<String> jvmOptions, List<String> args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(PlayerFiles.PLAYER);
    command.addAll(args);
    Path stdout = dir.resolve(name + ".out");
    Path stderr = dir.resolve(name + ".err");
    long start = System.nanoTime();
    Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    if (!p.waitFor(CHILD_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor();
      Files.writeString(stderr, "\n(killed: still running after " + CHILD_MINUTES + " minutes)\n",
          StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
      return new Child(-1, Files.readString(stdout), Files.readString(stderr), (System.nanoTime() - start) / 1e9);
    }
    return new Child(p.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
        Files.readString(stderr, StandardCharsets.UTF_8), (System.nanoTime() - start) / 1e9);
  }

  /** The class path entries that are not this jar: what the application brings, JCuda. */
  static List<String> withoutAgent(String classPath) {
    Path jar = agentJar();
    List<String> entries = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (!entry.isEmpty() && (jar == null || !samePath(Path.of(entry), jar))) {
        entries.add(entry);
      }
    }
    return entries;
  }

  /**
   * The first JCuda class the player needs that {@code classPath} does not hold (loaded, not
   * initialized: this JVM never loads CUDA), or empty.
   */
  static Optional<String> missingJCuda(List<String> classPath) {
    List<URL> urls = new ArrayList<>();
    for (String entry : classPath) {
      for (Path p : expand(entry)) {
        try {
          urls.add(p.toUri().toURL());
        } catch (MalformedURLException e) {
          // not a file the JVM could read either
        }
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      for (String[] c : new String[][] {{"jcuda.driver.JCudaDriver", "JCuda"}, {"jcuda.jcublas.JCublas2", "JCublas"}}) {
        try {
          Class.forName(c[0], false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
          return Optional.of(c[1] + " (" + c[0] + ")");
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("JCuda");
    }
  }

  /** A class path entry as the {@code java} launcher reads it: {@code DIR/*} is DIR's jars. */
  private static List<Path> expand(String entry) {
    if (!entry.equals("*") && !entry.endsWith(File.separator + "*")) {
      return List.of(Path.of(entry.isEmpty() ? "." : entry));
    }
    Path dir = Path.of(entry.substring(0, entry.length() - 1).isEmpty() ? "." : entry.substring(0, entry.length() - 1));
    List<Path> jars = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.{jar,JAR}")) {
      s.forEach(jars::add);
    } catch (IOException e) {
      // an unreadable directory adds nothing, as for java
    }
    return jars;
  }

  /** This jar, or null where the classes come from elsewhere (a build's class directories). */
  private static Path agentJar() {
    Object source = codeSource();
    if (source instanceof Path p && Files.isRegularFile(p) && p.toString().endsWith(".jar")) {
      return p.toAbsolutePath();
    }
    return null;
  }

  private static Object codeSource() {
    try {
      return Path.of(InterceptedSelfTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      return "an unknown place";
    }
  }

  private static boolean samePath(Path a, Path b) {
    try {
      return Files.exists(a) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /** The player's one line about why there is no GPU, with the missing library named where it is one. */
  static String reason(String stdout) {
    String line = stdout.lines().filter(l -> l.startsWith("no GPU: ")).findFirst().orElse(stdout.strip())
        .replaceFirst("^no GPU: ", "");
    return SelfTestCommand.driverProblem(line);
  }

  private static String tail(String text) {
    List<String> lines = text.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size())) + "\n";
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }
}
