package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

  @TempDir Path temp;

  private record Run(int code, String out, String err) {}

  private static Run main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Completes {@code line} (its last word) with the script in bash, as a shell would on Tab. */
  private String complete(Path script, String line) throws Exception {
    String words = line.endsWith(" ") ? line + "''" : line;
    Process bash = new ProcessBuilder("bash", "-c", "source " + script + "; COMP_WORDS=(" + words + "); "
        + "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _kernelweave; echo \"${COMPREPLY[*]}\"")
        .directory(temp.toFile()).redirectErrorStream(true).start();
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(bash.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, bash.exitValue(), out);
    return out;
  }

  @Test
  void completionPrintsABashScriptThatCompletesCommandsOptionsAndValues() throws Exception {
    Run run = main("completion");
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("complete -o filenames -F _kernelweave kernelweave"), run.out());
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash to load the script into: skipped");
    Path script = temp.resolve("completion.bash");
    Files.writeString(script, run.out());
    assertEquals("inspect", complete(script, "kernelweave ins"));
    assertEquals("stats", complete(script, "kernelweave inspect st"));
    assertEquals("--svg", complete(script, "kernelweave inspect dag --s"));
    assertEquals("--since", complete(script, "kernelweave inspect stats --s"));
    assertEquals("json", complete(script, "kernelweave inspect stats --format j"));
    assertEquals("-f -n --kernel --help", complete(script, "kernelweave inspect tail -"));
  }

  @Test
  void anUnknownCommandNamesTheCommandsThereAre() {
    Run run = main("inpsect");
    assertEquals(Main.USAGE, run.code());
    assertTrue(run.err().contains("unknown command 'inpsect': expected inspect, ptx, selftest, completion, version"),
        run.err());
    assertTrue(main("--help").out().contains("source <(kernelweave completion)"));
  }
}
