package dev.kernelweave.agent;

import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Opens the JDK internals the journal's memory-mapped files use to the agent's module, so that the
 * user adds no {@code --add-opens} flags: an agent may redefine modules, a library may not. Runs
 * before anything starts the journal's Chronicle: the export of {@code jdk.internal.misc} is what
 * makes {@code ChronicleUnsafe} (Chronicle's {@code sun.misc.Unsafe} in the jar) use the JDK's
 * internal class, for which Java 24 and later print no warning.
 */
final class JdkAccess {

  private static final String[] OPENS = {
    "java.lang", "java.lang.reflect", "java.io", "java.nio", "java.util", "sun.nio.ch", "jdk.internal.misc",
  };
  private static final String[] EXPORTS = {"jdk.internal.ref", "sun.nio.ch", "jdk.internal.misc"};

  private JdkAccess() {}

  static void openTo(Instrumentation jvm, Module agent) {
    Module base = Object.class.getModule();
    Map<String, Set<Module>> exports = new HashMap<>();
    for (String p : EXPORTS) {
      exports.put(p, Set.of(agent));
    }
    Map<String, Set<Module>> opens = new HashMap<>();
    for (String p : OPENS) {
      opens.put(p, Set.of(agent));
    }
    jvm.redefineModule(base, Set.of(), exports, opens, Set.of(), Map.of());
    ModuleLayer.boot().findModule("jdk.unsupported").ifPresent(unsupported ->
        jvm.redefineModule(unsupported, Set.of(), Map.of("sun.misc", Set.of(agent)),
            Map.of("sun.misc", Set.of(agent)), Set.of(), Map.of()));
  }
}
