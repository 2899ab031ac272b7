package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.agent.Version;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    Process bash = new ProcessBuilder("bash", "-c", "source " + script
        // compopt works inside a completion only; here its effect on the reply is none.
        + "; compopt() { :; }; COMP_LINE='" + line + "'; COMP_WORDS=("
        + words + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _complete_kernelweave; echo \"${COMPREPLY[*]}\"")
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
    assertTrue(run.out().contains("complete -F _complete_kernelweave -o default kernelweave"), run.out());
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash to load the script into: skipped");
    Path script = temp.resolve("completion.bash");
    Files.writeString(script, run.out());
    assertEquals("inspect", complete(script, "kernelweave ins"));
    assertEquals("stats", complete(script, "kernelweave inspect st"));
    assertEquals("--svg", complete(script, "kernelweave inspect dag --s"));
    assertEquals("--since", complete(script, "kernelweave inspect stats --s"));
    assertEquals("json", complete(script, "kernelweave inspect stats --format j"));
    assertEquals(Set.of("-f", "--follow", "-h", "--help", "-n", "--lines", "--kernel"),
        Set.of(complete(script, "kernelweave inspect tail -").split(" ")));
    assertEquals("drop-raw drop-war", complete(script, "kernelweave selftest --mutant drop-"));
    assertEquals("off", complete(script, "kernelweave selftest --graphs of"));
    Files.createDirectory(temp.resolve("journal-1"));
    assertEquals("journal-1", complete(script, "kernelweave inspect stats jou"), "DIR completes paths");
  }

  @Test
  void anUnknownCommandNamesTheCommandsThereAreAndTheNearestOne() {
    Run run = main("inpsect");
    assertEquals(Main.USAGE, run.code());
    assertTrue(run.err().contains("unknown command 'inpsect': expected inspect, ptx, selftest, completion, version"),
        run.err());
    assertTrue(run.err().contains("(did you mean inspect?)"), run.err());
    assertEquals(1, run.err().lines().count(), run.err());
    assertTrue(main("--help").out().contains("source <(kernelweave completion)"));
  }

  @Test
  void versionAndDashDashVersionPrintTheBuildsVersion() {
    assertFalse(Version.current().equals("unknown"), "the build wrote version.properties");
    for (String command : List.of("--version", "-V", "version")) {
      Run run = main(command);
      assertEquals(0, run.code(), run.err());
      assertEquals("kernelweave " + Version.current() + System.lineSeparator(), run.out());
    }
  }

  @Test
  void everyCommandHasItsOwnHelp() {
    Map<String, String> commands = new LinkedHashMap<>();
    commands.put("inspect", "stats");
    commands.put("inspect stats", "--since=INSTANT");
    commands.put("inspect tail", "--kernel=GLOB");
    commands.put("inspect dag", "--svg");
    commands.put("inspect trace", "--output=FILE.json");
    commands.put("ptx", "--json");
    commands.put("selftest", "--mutant=M");
    commands.put("completion", "source <(kernelweave completion)");
    commands.put("version", "--version");
    commands.forEach((command, expected) -> {
      List<String> args = new ArrayList<>(List.of(command.split(" ")));
      args.add("--help");
      Run run = main(args.toArray(String[]::new));
      if (command.equals("version")) {
        // version takes no options: its help is the top-level command's.
        run = main("help", "version");
      }
      assertEquals(0, run.code(), command + ": " + run.err());
      assertTrue(run.out().startsWith("Usage: kernelweave " + command), command + ":\n" + run.out());
      assertTrue(run.out().contains(expected), command + ":\n" + run.out());
    });
    Run top = main("--help");
    assertTrue(top.out().startsWith("Usage: kernelweave [-hV] [COMMAND]"), top.out());
    assertTrue(top.out().contains("As an agent:") && top.out().contains("mode=schedule|passthrough"), top.out());
    Run bare = main();
    assertEquals(Main.USAGE, bare.code());
    assertEquals(top.out(), bare.out(), "no command: the help, with the usage error's code");
  }

  @Test
  void badInputNamesTheOptionAndTheAcceptedValues() {
    Run option = main("ptx", "--yaml", "x.ptx");
    assertEquals(Main.USAGE, option.code());
    assertEquals("kernelweave ptx: unknown option '--yaml'; accepted: --json, -h/--help\n", option.err());
    Run format = main("inspect", "stats", "dir", "--format", "xml");
    assertEquals(Main.USAGE, format.code());
    assertTrue(format.err().startsWith("kernelweave inspect: --format is text, json or csv, not 'xml'\n"),
        format.err());
    Run graphs = main("selftest", "--sim", "--graphs", "maybe");
    assertEquals(Main.USAGE, graphs.code());
    assertTrue(graphs.err().startsWith("kernelweave selftest: --graphs: expected on or off, got 'maybe'\n"),
        graphs.err());
    Run atFile = main("ptx", "@args");
    assertEquals(Main.USAGE, atFile.code());
    assertEquals("kernelweave ptx: cannot read @args: no such file\n", atFile.err(), "an @ argument is a path");
    Run repeated = main("--version", "--version");
    assertEquals(0, repeated.code(), "a repeated option is no error: " + repeated.err());
    Run extra = main("version", "now");
    assertEquals(Main.USAGE, extra.code());
    assertEquals("kernelweave version: unexpected argument 'now': it takes no arguments\n", extra.err());
    Run top = main("--colour");
    assertEquals(Main.USAGE, top.code());
    assertEquals("kernelweave: unknown option '--colour'; accepted: -h/--help, -V/--version\n", top.err());
  }
}
