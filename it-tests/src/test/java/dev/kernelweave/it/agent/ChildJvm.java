package dev.kernelweave.it.agent;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a main class of this module's test class path in a new JVM, with or without the packaged agent. */
public final class ChildJvm {

  /** What a child printed and how it ended. */
  public record Result(int exitCode, String stdout, String stderr) {
    /** The lines a program prints as its observable output: results and checksums, not times. */
    public List<String> observable() {
      List<String> lines = new ArrayList<>();
      for (String line : stdout.split("\n")) {
        if (line.startsWith("result") || line.startsWith("checksum") || line.startsWith("dot")) {
          lines.add(line);
        }
      }
      return lines;
    }
  }

  private ChildJvm() {}

  /** The packaged agent, built by the agent module before this module's tests run. */
  public static Path agentJar() {
    for (Path candidate : List.of(Path.of("../agent/target/kernelweave-agent.jar"),
        Path.of("agent/target/kernelweave-agent.jar"))) {
      if (Files.isRegularFile(candidate)) {
        return candidate.toAbsolutePath();
      }
    }
    throw new IllegalStateException("agent/target/kernelweave-agent.jar is missing: run mvn package first");
  }

  public static String java(String javaHome) {
    return Path.of(javaHome, "bin", "java").toString();
  }

  /**
   * @param agentOptions null for no agent, else the text after {@code -javaagent:jar=}
   */
  static Result run(String java, String agentOptions, Class<?> main, String... args)
      throws IOException, InterruptedException {
    return run(java, agentOptions, List.of(), main, args);
  }

  /**
   * The class path of a program under test: this module's test classes and JCuda, as an
   * application has them. The agent's classes and libraries are left out: they come from the agent
   * jar alone, as in a user's run.
   */
  public static String programClassPath(List<Path> extra) {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Path.of(entry).getFileName().toString();
      if (name.equals("test-classes") || name.contains("jcuda") || name.contains("jcublas")
          || name.contains("kernelweave-kernels") || entry.endsWith("kernels/target/classes")) {
        entries.add(entry);
      }
    }
    for (Path p : extra) {
      entries.add(p.toAbsolutePath().toString());
    }
    return String.join(File.pathSeparator, entries);
  }

  static Result run(String java, String agentOptions, List<Path> extraClassPath, Class<?> main, String... args)
      throws IOException, InterruptedException {
    return run(java, agentOptions, extraClassPath, Map.of(), main.getName(), args);
  }

  /** The general form: any main class by name, with extra environment variables. */
  public static Result run(String java, String agentOptions, List<Path> extraClassPath, Map<String, String> env,
      String main, String... args) throws IOException, InterruptedException {
    return runOnClassPath(java, agentOptions, programClassPath(extraClassPath), env, main, args);
  }

  /** The same with the whole system class path given. */
  static Result runOnClassPath(String java, String agentOptions, String classPath, Map<String, String> env,
      String main, String... args) throws IOException, InterruptedException {
    return runOnClassPath(java, List.of(), agentOptions, classPath, env, main, args);
  }

  /** The same with options for the JVM itself (before the agent's). */
  public static Result runOnClassPath(String java, List<String> jvmOptions, String agentOptions, String classPath,
      Map<String, String> env, String main, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmOptions);
    if (agentOptions != null) {
      command.add("-javaagent:" + agentJar() + "=" + engagedFromTheFirstCall(agentOptions));
    }
    command.add("-cp");
    command.add(classPath);
    command.add(main);
    command.addAll(List.of(args));
    return start(command, env);
  }

  private static Result start(List<String> command) throws IOException, InterruptedException {
    return start(command, Map.of());
  }

  /**
   * The options with {@code engage=at-once} where they name no {@code engage}: these tests check the
   * agent's scheduling, and with the default, {@code engage=auto}, their small programs would run as
   * written and check none of it. Tests of engagement itself name it.
   */
  static String engagedFromTheFirstCall(String agentOptions) {
    if (agentOptions.contains("engage=")) {
      return agentOptions;
    }
    return agentOptions.isEmpty() ? "engage=at-once" : agentOptions + ",engage=at-once";
  }

  /** Runs any command, with {@code env} added to this JVM's environment, and waits for it. */
  public static Result start(List<String> command, Map<String, String> env)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("kw-child", ".out");
    Path err = Files.createTempFile("kw-child", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(env);
    Process p = builder.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("timed out: " + command);
    }
    Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
    Files.deleteIfExists(out);
    Files.deleteIfExists(err);
    return r;
  }

  /** Runs the packaged agent jar's command line: {@code java -jar kernelweave-agent.jar ARGS}. */
  static Result command(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(java(System.getProperty("java.home")), "-jar", agentJar().toString()));
    command.addAll(List.of(args));
    return start(command);
  }

  static Result run(String agentOptions, Class<?> main, String... args) throws IOException, InterruptedException {
    return run(java(System.getProperty("java.home")), agentOptions, main, args);
  }
}
