package dev.kernelweave.it.bench;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts Java virtual machines and collects what they print: the one place where this module
 * launches a JVM.
 *
 * <p>Standard output and error go, merged, to a temporary file rather than a pipe, so a chatty
 * child can never block on a full pipe and a hung one can still be timed out.
 */
public final class Jvm {

  /** Exit code reported for a JVM that ran past its time limit and was killed. */
  public static final int TIMED_OUT = 124;

  private final String java;
  private final long timeoutSeconds;
  private final Map<String, String> environment;

  /**
   * @param java the {@code java} executable
   * @param timeoutSeconds how long one JVM may run before it is killed
   */
  public Jvm(String java, long timeoutSeconds) {
    this(java, timeoutSeconds, Map.of());
  }

  private Jvm(String java, long timeoutSeconds, Map<String, String> environment) {
    this.java = java;
    this.timeoutSeconds = timeoutSeconds;
    this.environment = Map.copyOf(environment);
  }

  /** The same launcher, its JVMs started with these variables added to this process's environment. */
  public Jvm withEnvironment(Map<String, String> variables) {
    return new Jvm(java, timeoutSeconds, variables);
  }

  /** The {@code java} executable of the JVM running this code. */
  public static String currentJava() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The {@code java} executable this launcher starts. */
  public String java() {
    return java;
  }

  /**
   * Runs {@code java ARGS...} to completion (or to the time limit) and returns what happened.
   *
   * @param args everything after {@code java} on the command line
   */
  public Run run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(args);
    Path log = null;
    try {
      log = Files.createTempFile("kernelweave-jvm-", ".log");
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      builder.environment().putAll(environment);
      Process process = builder.start();
      process.getOutputStream().close();
      boolean finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      if (!finished) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      List<String> lines = Files.readAllLines(log, Charset.defaultCharset());
      if (!finished) {
        lines.add("(killed after " + timeoutSeconds + " s)");
      }
      return new Run(command, finished ? process.exitValue() : TIMED_OUT, lines);
    } catch (IOException e) {
      return new Run(command, -1, List.of("could not start or read the JVM: " + e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Run(command, -1, List.of("interrupted"));
    } finally {
      deleteQuietly(log);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // A leftover log in the temporary directory is harmless.
      }
    }
  }

  /**
   * One finished JVM.
   *
   * @param command the full command line, {@code java} first
   * @param exitCode its exit status ({@link #TIMED_OUT} where it was killed, -1 where it could not
   *     be started)
   * @param lines standard output and error, merged, one element a line
   */
  public record Run(List<String> command, int exitCode, List<String> lines) {
    public Run {
      command = List.copyOf(command);
      lines = List.copyOf(lines);
    }

    /** The last {@code n} lines of output. */
    public List<String> tail(int n) {
      return lines.subList(Math.max(0, lines.size() - n), lines.size());
    }

    /** The last line of output that is not blank, or empty. */
    public String lastLine() {
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).isBlank()) {
          return lines.get(i).strip();
        }
      }
      return "";
    }

    /** The command line as one string a shell would accept (arguments with spaces quoted). */
    public String commandLine() {
      StringBuilder out = new StringBuilder();
      for (String arg : command) {
        if (out.length() > 0) {
          out.append(' ');
        }
        out.append(arg.isEmpty() || arg.matches(".*[\\s\"'$*;&|<>()].*") ? "'" + arg.replace("'", "'\\''") + "'" : arg);
      }
      return out.toString();
    }

    /** A failure report: the command, its exit status and its last {@code n} lines. */
    public String describeFailure(int n) {
      StringBuilder out = new StringBuilder();
      out.append("  command: ").append(commandLine()).append('\n');
      out.append("  exit ").append(exitCode).append("; last lines of output:\n");
      for (String line : tail(n)) {
        out.append("    | ").append(line).append('\n');
      }
      return out.toString();
    }
  }
}
