package dev.kernelweave.interceptor.install;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.InterceptorSettings;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.function.Supplier;

/**
 * The agent's one class file transformer. Every class whose name is not a JCuda library entry
 * class ({@code jcuda/<library>/J<Name>}) is passed over after a string comparison. A candidate
 * gets its woven form from the build ({@link PrewovenClasses}) when its bytes are the ones the
 * agent was built against, else from Byte Buddy, loaded then and only then; and its class loader
 * gets the interceptor's classes where it needs its own copies ({@link HelperInjection}). A class
 * that cannot be supported is left as it is, with one warning. Thread-safe.
 */
public final class JCudaTransformer implements ClassFileTransformer {

  private final ClassLoader agentLoader;
  private final Supplier<ClassFileTransformer> runtimeWeaver;
  private final ProtectionDomain agentDomain;
  private final Supplier<InterceptorSettings> settings;
  /** Made with the first JCuda class; a program without CUDA never loads it. */
  private volatile HelperInjection injection;
  private final Runnable beforeFirstJCudaClass;
  private volatile PrewovenClasses prewoven;
  private volatile ClassFileTransformer weaver;

  /**
   * @param agentLoader the loader of the agent's classes and of the woven classes' index
   * @param settings the agent's settings, given to every copy of the interceptor it activates
   * @param runtimeWeaver makes the Byte Buddy transformer for classes the build did not weave;
   *     called at most once
   * @param beforeFirstJCudaClass run once, before the first JCuda class is woven
   */
  public JCudaTransformer(ClassLoader agentLoader, ProtectionDomain agentDomain, Supplier<InterceptorSettings> settings,
      Supplier<ClassFileTransformer> runtimeWeaver, Runnable beforeFirstJCudaClass) {
    this.agentLoader = agentLoader;
    this.beforeFirstJCudaClass = beforeFirstJCudaClass;
    this.runtimeWeaver = runtimeWeaver;
    this.agentDomain = agentDomain;
    this.settings = settings;
  }

  /** Whether a class, by internal name, may be a JCuda library's entry class. */
  public static boolean isCandidate(String internalName) {
    if (!internalName.startsWith("jcuda/")) {
      return false;
    }
    int slash = internalName.indexOf('/', 6);
    if (slash < 7 || slash + 2 >= internalName.length() || internalName.charAt(slash + 1) != 'J') {
      return false;
    }
    for (int i = 6; i < slash; i++) {
      char c = internalName.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9')) {
        return false;
      }
    }
    for (int i = slash + 2; i < internalName.length(); i++) {
      char c = internalName.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')) {
        return false;
      }
    }
    return true;
  }

  @Override
  public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
      ProtectionDomain domain, byte[] classFile) {
    if (className == null || !isCandidate(className)) {
      return null;
    }
    String name = className.replace('/', '.');
    try {
      byte[] woven;
      String how;
      firstJCudaClass();
      PrewovenClasses known = prewoven();
      switch (known.verdict(className, classFile)) {
        case WOVEN -> {
          woven = known.woven(className);
          how = "as built";
        }
        case UNCHANGED -> {
          return null;
        }
        default -> {
          woven = weaver().transform(module, loader, className, redefined, domain, classFile);
          how = "at run time";
        }
      }
      if (woven == null) {
        return null;
      }
      String problem = injection.prepare(loader, woven);
      if (problem != null) {
        AgentLog.warnOnce("loader-" + HelperInjection.describe(loader),
            "JCuda's calls run without the agent: " + problem);
        return null;
      }
      AgentLog.debug("instrumented " + name + " (" + how + ")");
      return woven;
    } catch (Throwable e) {
      AgentLog.warnOnce("transform-" + name, "could not instrument " + name + ", its calls are not seen: " + e);
      return null;
    }
  }

  /** Shuts down the copies of the interceptor this transformer added to other class loaders. */
  public void shutdownCopies() {
    HelperInjection i = injection;
    if (i != null) {
      i.shutdown();
    }
  }

  private void firstJCudaClass() {
    if (injection == null) {
      synchronized (this) {
        if (injection == null) {
          beforeFirstJCudaClass.run();
          injection = new HelperInjection(agentLoader, agentDomain, settings);
        }
      }
    }
  }

  private PrewovenClasses prewoven() throws java.io.IOException {
    PrewovenClasses p = prewoven;
    if (p == null) {
      synchronized (this) {
        p = prewoven;
        if (p == null) {
          p = PrewovenClasses.load(agentLoader);
          prewoven = p;
        }
      }
    }
    return p;
  }

  private ClassFileTransformer weaver() {
    ClassFileTransformer w = weaver;
    if (w == null) {
      synchronized (this) {
        w = weaver;
        if (w == null) {
          w = runtimeWeaver.get();
          weaver = w;
        }
      }
    }
    return w;
  }
}
