package dev.kernelweave.agent;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Where the agent's options come from, merged in one place. From the strongest to the weakest:
 *
 * <ol>
 *   <li>the agent argument, {@code -javaagent:kernelweave-agent.jar=key=value,...};
 *   <li>system properties, {@code -Dkernelweave.key=value};
 *   <li>environment variables, {@code KERNELWEAVE_KEY=value} (the key in capitals);
 *   <li>a properties file of {@code key=value} lines, named by {@code config} in any of the three
 *       above ({@code config=FILE}, {@code -Dkernelweave.config=FILE}, {@code KERNELWEAVE_CONFIG=FILE}).
 * </ol>
 *
 * <p>Each value remembers where it was given, so that a bad one is reported with its source: a user
 * who never typed {@code mode=foo} learns that it came from {@code KERNELWEAVE_MODE}.
 */
final class OptionSources {

  static final String PROPERTY_PREFIX = "kernelweave.";
  static final String ENVIRONMENT_PREFIX = "KERNELWEAVE_";
  /** Names the properties file; not an option of the agent itself. */
  static final String CONFIG_KEY = "config";
  /**
   * The option whose value is a comma-separated list: in the agent argument, a piece with no
   * {@code =} after it continues its value.
   */
  static final String LIST_KEY = "priority";

  /**
   * One option's value and where it was given.
   *
   * @param origin the source as the user wrote it ({@code KERNELWEAVE_MODE}, {@code
   *     -Dkernelweave.mode}, {@code FILE}); null for the agent argument, whose messages name the
   *     option alone
   */
  record Setting(String value, String origin) {

    /** The problem with this setting, prefixed with where it was given. */
    AgentOptions.InvalidOption named(AgentOptions.InvalidOption problem) {
      return origin == null ? problem : new AgentOptions.InvalidOption(origin + ": " + problem.getMessage());
    }
  }

  private OptionSources() {}

  /**
   * The options by key, each from its strongest source; the {@code config} key is consumed here.
   *
   * @param environment the process environment ({@link System#getenv()}), a parameter for tests
   * @throws AgentOptions.InvalidOption for an argument that is not {@code key=value} or a properties
   *     file that cannot be read
   */
  static Map<String, Setting> collect(String agentArgument, Properties system, Map<String, String> environment) {
    Map<String, Setting> argument = fromArgument(agentArgument);
    Map<String, Setting> properties = fromSystemProperties(system);
    Map<String, Setting> variables = fromEnvironment(environment);
    Setting config = strongest(CONFIG_KEY, argument, properties, variables);
    Map<String, Setting> merged = config == null ? new LinkedHashMap<>() : fromFile(config);
    for (Map<String, Setting> layer : List.of(variables, properties, argument)) {
      merged.putAll(layer);
    }
    merged.remove(CONFIG_KEY);
    return merged;
  }

  /**
   * Parses the collected settings: each alone first, so that a bad one is reported with its source,
   * then all together. (No lambdas on the agent's start path: the first costs the JVM a bootstrap.)
   */
  static AgentOptions parse(Map<String, Setting> settings) {
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, Setting> e : settings.entrySet()) {
      try {
        AgentOptions.fromValues(Map.of(e.getKey(), e.getValue().value()));
      } catch (AgentOptions.InvalidOption problem) {
        throw e.getValue().named(problem);
      }
      values.put(e.getKey(), e.getValue().value());
    }
    return AgentOptions.fromValues(values);
  }

  @SafeVarargs
  private static Setting strongest(String key, Map<String, Setting>... strongestFirst) {
    for (Map<String, Setting> layer : strongestFirst) {
      Setting s = layer.get(key);
      if (s != null) {
        return s;
      }
    }
    return null;
  }

  private static Map<String, Setting> fromArgument(String agentArgument) {
    Map<String, Setting> values = new LinkedHashMap<>();
    if (agentArgument == null || agentArgument.isBlank()) {
      return values;
    }
    String previous = null;
    for (String pair : agentArgument.split(",")) {
      int eq = pair.indexOf('=');
      if (eq < 0 && LIST_KEY.equals(previous)) {
        // priority=high:a-*,low:b-*: its rules are separated by the same comma as the options
        Setting s = values.get(previous);
        values.put(previous, new Setting(s.value() + "," + pair.trim(), null));
        continue;
      }
      if (eq <= 0) {
        throw new AgentOptions.InvalidOption(
            "option '" + pair.trim() + "' is not key=value; accepted keys: " + AgentOptions.KEYS);
      }
      previous = pair.substring(0, eq).trim();
      values.put(previous, new Setting(pair.substring(eq + 1).trim(), null));
    }
    return values;
  }

  private static Map<String, Setting> fromSystemProperties(Properties system) {
    Map<String, Setting> values = new LinkedHashMap<>();
    for (String name : system.stringPropertyNames()) {
      if (name.startsWith(PROPERTY_PREFIX)) {
        values.put(name.substring(PROPERTY_PREFIX.length()), new Setting(system.getProperty(name), "-D" + name));
      }
    }
    return values;
  }

  /**
   * {@code KERNELWEAVE_STREAMS} gives {@code streams}: the key is the rest of the name in lower case,
   * its underscores hyphens ({@code KERNELWEAVE_JOURNAL_KEEP} gives {@code journal-keep}), since a
   * variable's name cannot hold a hyphen.
   */
  private static Map<String, Setting> fromEnvironment(Map<String, String> environment) {
    Map<String, Setting> values = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : environment.entrySet()) {
      String name = e.getKey();
      if (name.startsWith(ENVIRONMENT_PREFIX) && name.length() > ENVIRONMENT_PREFIX.length()) {
        String key = name.substring(ENVIRONMENT_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '-');
        values.put(key, new Setting(e.getValue().trim(), name));
      }
    }
    return values;
  }

  /** The system's reason a file could not be read, in its words. */
  private static String reason(Exception e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    if (e instanceof java.nio.charset.CharacterCodingException) {
      return "not UTF-8 text";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private static Map<String, Setting> fromFile(Setting config) {
    Path file = Path.of(config.value());
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (IOException | IllegalArgumentException e) {
      String where = config.origin() == null ? "option config=" + config.value() : config.origin() + "=" + config.value();
      throw new AgentOptions.InvalidOption(where + ": cannot read the properties file (" + reason(e)
          + "); accepted: a readable file of key=value lines with keys " + AgentOptions.KEYS);
    }
    Map<String, Setting> values = new LinkedHashMap<>();
    for (String key : p.stringPropertyNames()) {
      values.put(key.trim(), new Setting(p.getProperty(key).trim(), file.toString()));
    }
    return values;
  }
}
