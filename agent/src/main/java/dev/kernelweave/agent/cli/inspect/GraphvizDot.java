package dev.kernelweave.agent.cli.inspect;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Graphviz's {@code dot}, run as a separate program to draw a DOT graph as SVG or PNG: {@code dot}
 * on the PATH, or the program the system property {@value #PROGRAM_PROPERTY} or the environment
 * variable {@value #PROGRAM_VARIABLE} names. Stateless.
 */
public final class GraphvizDot {

  /** The environment variable that names the {@code dot} program to run. */
  public static final String PROGRAM_VARIABLE = "KERNELWEAVE_DOT";
  /** The system property that names it, before the environment variable. */
  public static final String PROGRAM_PROPERTY = "kernelweave.dot";

  private GraphvizDot() {}

  /** The program to run. */
  static String program() {
    String named = System.getProperty(PROGRAM_PROPERTY);
    if (named == null || named.isBlank()) {
      named = System.getenv(PROGRAM_VARIABLE);
    }
    return named == null || named.isBlank() ? "dot" : named;
  }

  /**
   * Fails with one line, before anything is written, when {@code dot} cannot be run: what to
   * install, or which variable to set.
   */
  public static void check() throws InspectException {
    try {
      Process p = new ProcessBuilder(program(), "-V").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new InspectException("'" + program() + " -V' failed: is it Graphviz's dot? (set "
            + PROGRAM_VARIABLE + " to the dot to run)", Journal.UNREADABLE);
      }
    } catch (IOException e) {
      throw new InspectException("drawing needs Graphviz's dot (https://graphviz.org/download/): cannot run '"
          + program() + "': " + OutputFile.reason(e) + "; install Graphviz or set " + PROGRAM_VARIABLE
          + ", or write DOT with -o FILE.dot", Journal.UNREADABLE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InspectException("interrupted while checking for dot", Journal.UNREADABLE);
    }
  }

  /** Runs {@code dot -T<format>} on the graph {@code writer} prints, copying the drawing to {@code to}. */
  public static void render(Consumer<PrintStream> writer, String format, OutputStream to) throws IOException {
    Process p = new ProcessBuilder(List.of(program(), "-T" + format)).redirectError(ProcessBuilder.Redirect.PIPE).start();
    // The drawing is read while the graph is written, so that neither side's pipe fills and blocks.
    Thread feeder = new Thread(() -> {
      try (PrintStream in = new PrintStream(p.getOutputStream(), false, StandardCharsets.UTF_8)) {
        writer.accept(in);
      }
    }, "kernelweave-dot-input");
    feeder.start();
    try (InputStream drawing = p.getInputStream()) {
      drawing.transferTo(to);
      String errors = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      feeder.join();
      if (p.waitFor() != 0) {
        throw new IOException("dot failed (exit " + p.exitValue() + ")"
            + (errors.isEmpty() ? "" : ": " + errors.lines().findFirst().orElse("")));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroy();
      throw new IOException("interrupted while dot ran", e);
    }
  }
}
