package dev.kernelweave.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options from the environment and a properties file, beside the agent argument and -D, and their precedence. */
class OptionSourcesTest {

  @TempDir
  Path dir;

  private final Properties none = new Properties();

  private Path file(String... lines) throws IOException {
    return Files.write(dir.resolve("kernelweave.properties"), List.of(lines));
  }

  private static Properties system(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  @Test
  void environmentVariablesGiveOptionsByTheirKeyInCapitals() {
    AgentOptions o = AgentOptions.parse(null, none,
        Map.of("KERNELWEAVE_MODE", "passthrough", "KERNELWEAVE_STREAMS", " 4 ", "KERNELWEAVE_LOG", "system", "PATH", "/bin"));
    assertEquals(Mode.PASSTHROUGH, o.mode());
    assertEquals(4, o.streams());
    assertEquals(AgentLog.Level.SYSTEM, o.log());
  }

  @Test
  void environmentVariableUnderscoresAreTheKeysHyphens() {
    AgentOptions o = AgentOptions.parse(null, none, Map.of("KERNELWEAVE_JOURNAL_KEEP", "3", "KERNELWEAVE_JOURNAL_MAX_BYTES", "2m"));
    assertEquals(3, o.journalKeep());
    assertEquals(2L << 20, o.journalMaxBytes());
  }

  @Test
  void propertiesFileNamedByTheEnvironmentGivesOptions() throws IOException {
    Path f = file("# the team's settings", "ptx=off", "graphs = off", "journal=off");
    AgentOptions o = AgentOptions.parse(null, none, Map.of("KERNELWEAVE_CONFIG", f.toString()));
    assertFalse(o.ptx());
    assertFalse(o.graphs());
    assertEquals(null, o.journal());
  }

  @Test
  void precedenceIsArgumentThenSystemPropertyThenEnvironmentThenFile() throws IOException {
    Path f = file("mode=passthrough", "streams=2", "ptx=off", "graphs=off");
    Map<String, String> env = Map.of("KERNELWEAVE_STREAMS", "3", "KERNELWEAVE_PTX", "on", "KERNELWEAVE_GRAPHS", "on",
        "KERNELWEAVE_CONFIG", f.toString());
    Properties p = system("kernelweave.streams", "5", "kernelweave.ptx", "off");
    AgentOptions o = AgentOptions.parse("streams=7", p, env);
    assertEquals(7, o.streams(), "the agent argument over -D, environment and file");
    assertFalse(o.ptx(), "-D over the environment");
    assertTrue(o.graphs(), "the environment over the file");
    assertEquals(Mode.PASSTHROUGH, o.mode(), "the file where nothing else says");
  }

  @Test
  void fileNamedBySystemPropertyOrArgumentWinsOverTheEnvironmentsFile() throws IOException {
    Path weak = Files.write(dir.resolve("weak.properties"), List.of("streams=2"));
    Path strong = Files.write(dir.resolve("strong.properties"), List.of("streams=6"));
    Map<String, String> env = Map.of("KERNELWEAVE_CONFIG", weak.toString());
    assertEquals(6, AgentOptions.parse(null, system("kernelweave.config", strong.toString()), env).streams());
    assertEquals(6, AgentOptions.parse("config=" + strong, none, env).streams());
  }

  @Test
  void badValueNamesItsSourceAndTheAcceptedValues() throws IOException {
    var e = assertThrows(AgentOptions.InvalidOption.class,
        () -> AgentOptions.parse(null, none, Map.of("KERNELWEAVE_MODE", "foo")));
    assertEquals("KERNELWEAVE_MODE: option mode=foo is not valid; accepted: schedule or passthrough", e.getMessage());
    e = assertThrows(AgentOptions.InvalidOption.class,
        () -> AgentOptions.parse(null, system("kernelweave.streams", "99"), Map.of()));
    assertTrue(e.getMessage().startsWith("-Dkernelweave.streams: option streams=99"), e.getMessage());
    Path f = file("graphs=sometimes");
    e = assertThrows(AgentOptions.InvalidOption.class,
        () -> AgentOptions.parse(null, none, Map.of("KERNELWEAVE_CONFIG", f.toString())));
    assertTrue(e.getMessage().startsWith(f + ": option graphs=sometimes") && e.getMessage().contains("on or off"),
        e.getMessage());
  }

  @Test
  void badValueOverriddenByAStrongerSourceIsNotReported() {
    AgentOptions o = AgentOptions.parse("mode=schedule", none, Map.of("KERNELWEAVE_MODE", "foo"));
    assertEquals(Mode.SCHEDULE, o.mode());
  }

  @Test
  void unknownEnvironmentKeyIsNamedWithTheAcceptedKeys() {
    var e = assertThrows(AgentOptions.InvalidOption.class,
        () -> AgentOptions.parse(null, none, Map.of("KERNELWEAVE_SPEED", "max")));
    assertTrue(e.getMessage().startsWith("KERNELWEAVE_SPEED: unknown option 'speed'"), e.getMessage());
    assertTrue(e.getMessage().contains(AgentOptions.KEYS), e.getMessage());
  }

  @Test
  void unreadableFileIsNamedWithWhereItWasGiven() {
    Path missing = dir.resolve("missing.properties");
    var e = assertThrows(AgentOptions.InvalidOption.class,
        () -> AgentOptions.parse(null, none, Map.of("KERNELWEAVE_CONFIG", missing.toString())));
    assertTrue(e.getMessage().startsWith("KERNELWEAVE_CONFIG=" + missing + ": cannot read the properties file"),
        e.getMessage());
    assertTrue(e.getMessage().contains("(no such file or directory)"), e.getMessage());
  }
}
