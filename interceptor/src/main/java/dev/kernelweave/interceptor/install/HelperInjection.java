package dev.kernelweave.interceptor.install;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.AgentState;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.InterceptorSettings;
import dev.kernelweave.interceptor.Mode;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * Makes woven JCuda classes work whatever class loader defines them, the way the OpenTelemetry
 * agent injects its helpers. Woven code names the interceptor's classes ({@code Calls},
 * {@code Modules}...), and the JVM resolves those names through the loader that defined the JCuda
 * class. Where that is the agent's own loader, nothing is done. Where JCuda lives in another loader
 * (a fat jar, an application server, a plugin), every interceptor class the woven code reaches is
 * defined again in that loader, so that each links the application's {@code jcuda.*} and never the
 * agent loader's; the copy of {@link AgentState} there (one per loader) is activated with the
 * agent's settings, through that copy of {@link Interception}, and shut down with the agent.
 *
 * <p>What stays shared: every class outside {@code dev.kernelweave.interceptor} (the scheduler,
 * the journal, the relocated libraries: none of them links JCuda, which Maven enforces), and
 * {@link #SHARED}, the carriers of the process-wide configuration, which link neither JCuda nor an
 * injected class and whose members the injected classes reach are public.
 *
 * <p>Thread-safe: one injection at a time.
 */
final class HelperInjection {

  static final String ROOT = "dev/kernelweave/interceptor/";
  /** Classes of {@link #ROOT} that every copy shares: one log, one set of settings. */
  static final Set<String> SHARED = Set.of(internal(AgentLog.class), internal(InterceptorSettings.class),
      internal(Mode.class));
  private static final String INTERCEPTION = internal(Interception.class);
  private static final String STATE = internal(AgentState.class);

  private final ClassLoader agentLoader;
  private final ProtectionDomain domain;
  private final Supplier<InterceptorSettings> settings;
  private final Map<ClassLoader, Set<String>> injected = new WeakHashMap<>();
  private final Map<ClassLoader, String> refused = new WeakHashMap<>();
  private final List<Runnable> shutdowns = new ArrayList<>();
  private final Map<String, ClassReferences.Of> parsed = new HashMap<>();
  private final Map<String, byte[]> bytes = new HashMap<>();
  private Method defineClass;

  HelperInjection(ClassLoader agentLoader, ProtectionDomain domain, Supplier<InterceptorSettings> settings) {
    this.agentLoader = agentLoader;
    this.domain = domain;
    this.settings = settings;
  }

  /**
   * Readies {@code loader} for a woven class it is about to define.
   *
   * @return null when the woven class may be used; else why this loader cannot be supported (the
   *     class must then be left as it is)
   */
  synchronized String prepare(ClassLoader loader, byte[] woven) {
    if (loader == agentLoader) {
      return null;
    }
    if (loader == null) {
      return "JCuda is on the boot class path, where the agent cannot reach it";
    }
    String no = refused.get(loader);
    if (no != null) {
      return no;
    }
    try {
      Set<String> done = injected.computeIfAbsent(loader, l -> new HashSet<>());
      if (done.isEmpty() && !seesSharedClasses(loader)) {
        return refuse(loader, "its class loader " + describe(loader) + " does not delegate to the agent's classes");
      }
      Set<String> needed = closure(ClassReferences.of(woven).references());
      if (needed.contains(STATE)) {
        needed.addAll(closure(Set.of(INTERCEPTION))); // what activates the copy's state
      }
      needed.removeAll(done);
      for (String name : needed) {
        define(loader, name, needed, done);
      }
      if (needed.contains(STATE)) {
        activate(loader);
      }
      return null;
    } catch (Throwable e) {
      return refuse(loader, "the agent could not add its classes to " + describe(loader) + ": " + e);
    }
  }

  /** Shuts down every activated copy of {@link AgentState}, after the agent's own. */
  synchronized void shutdown() {
    for (Runnable r : shutdowns) {
      try {
        r.run();
      } catch (Throwable ignored) {
        // The others still close their journals.
      }
    }
  }

  /** The interceptor classes the given references reach, shared ones excepted. Internal names. */
  Set<String> closure(Set<String> roots) throws IOException {
    Set<String> seen = new LinkedHashSet<>();
    Deque<String> work = new ArrayDeque<>(roots);
    while (!work.isEmpty()) {
      String name = work.pop();
      if (!name.startsWith(ROOT) || SHARED.contains(name) || !seen.add(name)) {
        continue;
      }
      ClassReferences.Of of = parse(name);
      work.addAll(of.references());
      if (of.nestHost() != null) {
        work.add(of.nestHost());
      }
    }
    return seen;
  }

  private String refuse(ClassLoader loader, String reason) {
    refused.put(loader, reason);
    return reason;
  }

  private boolean seesSharedClasses(ClassLoader loader) {
    try {
      return Class.forName(InterceptorSettings.class.getName(), false, loader) == InterceptorSettings.class;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Defines {@code name} after those of its supertypes that are defined with it. */
  private void define(ClassLoader loader, String name, Set<String> needed, Set<String> done) throws Exception {
    if (done.contains(name)) {
      return;
    }
    ClassReferences.Of of = parse(name);
    if (of.superName() != null && needed.contains(of.superName())) {
      define(loader, of.superName(), needed, done);
    }
    for (String i : of.interfaces()) {
      if (needed.contains(i)) {
        define(loader, i, needed, done);
      }
    }
    byte[] b = bytes.get(name);
    defineClass().invoke(loader, name.replace('/', '.'), b, 0, b.length, domain);
    done.add(name);
  }

  private void activate(ClassLoader loader) throws Exception {
    Class<?> copy = Class.forName(Interception.class.getName(), false, loader);
    if (copy.getClassLoader() != loader) {
      throw new IllegalStateException("the loader does not find the classes defined in it first");
    }
    copy.getMethod("activate", InterceptorSettings.class).invoke(null, settings.get());
    Method shutdown = copy.getMethod("shutdown");
    shutdowns.add(() -> {
      try {
        shutdown.invoke(null);
      } catch (ReflectiveOperationException e) {
        AgentLog.warnOnce("shutdown-" + describe(loader), "could not close the journal of " + describe(loader) + ": " + e);
      }
    });
    AgentLog.debug("interceptor classes added to " + describe(loader));
  }

  private ClassReferences.Of parse(String name) throws IOException {
    ClassReferences.Of of = parsed.get(name);
    if (of == null) {
      try (InputStream in = agentLoader.getResourceAsStream(name + ".class")) {
        if (in == null) {
          throw new IOException("the agent jar has no " + name);
        }
        byte[] b = in.readAllBytes();
        of = ClassReferences.of(b);
        bytes.put(name, b);
        parsed.put(name, of);
      }
    }
    return of;
  }

  private Method defineClass() throws NoSuchMethodException {
    if (defineClass == null) {
      Method m = ClassLoader.class.getDeclaredMethod("defineClass", String.class, byte[].class, int.class, int.class,
          ProtectionDomain.class);
      // The agent opened java.lang to itself at start (JdkAccess); without that this throws and the loader is refused.
      m.setAccessible(true);
      defineClass = m;
    }
    return defineClass;
  }

  static String describe(ClassLoader loader) {
    return loader == null ? "the boot loader" : loader.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(loader));
  }

  static String internal(Class<?> type) {
    return type.getName().replace('.', '/');
  }

  /** For tests: the loaders given copies so far. */
  synchronized Set<ClassLoader> loaders() {
    return Collections.unmodifiableSet(new HashSet<>(injected.keySet()));
  }
}
