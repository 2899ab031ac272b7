package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.install.JCudaTransformer;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.lang.instrument.ClassFileTransformer;

/**
 * Installs the advice of every {@link Instrumentation} on JCuda's classes, matched by name: a
 * program that never loads JCuda is not touched, and classes already loaded are retransformed.
 *
 * <p>Installing loads a handful of classes and no Byte Buddy: the transformer ({@link
 * JCudaTransformer}) gives JCuda's classes the form the build wove them in, and only a JCuda the
 * agent was not built against is woven at run time, by {@link AdviceWeaving}.
 *
 * <p>Protocol: made by the agent's start, {@link #install} once, {@link #shutdown} at the JVM's
 * exit. Thread-safe.
 */
public final class InterceptorInstaller {

  /** The transformer installed, whose copies of the interceptor {@link #shutdown} closes; null before. */
  private volatile JCudaTransformer installed;

  public InterceptorInstaller() {}

  /**
   * Installs on the JVM after {@link Interception#activate}, and retransforms JCuda classes already
   * loaded. Remove the returned transformer and retransform to undo, in tests.
   */
  public static JCudaTransformer install(java.lang.instrument.Instrumentation jvm) {
    return new InterceptorInstaller().install(jvm, new Runnable() {
      @Override
      public void run() { }
    });
  }

  /**
   * {@link #install(java.lang.instrument.Instrumentation)}, running {@code beforeFirstJCudaClass}
   * once, before the first JCuda class is woven: what only a program that uses CUDA needs.
   */
  public JCudaTransformer install(java.lang.instrument.Instrumentation jvm, Runnable beforeFirstJCudaClass) {
    JCudaTransformer transformer = new JCudaTransformer(InterceptorInstaller.class.getClassLoader(),
        InterceptorInstaller.class.getProtectionDomain(), new CurrentSettings(), new RuntimeWeaver(),
        beforeFirstJCudaClass);
    jvm.addTransformer(transformer, true);
    installed = transformer;
    List<Class<?>> loaded = new ArrayList<>();
    for (Class<?> c : jvm.getAllLoadedClasses()) {
      if (c.getName().startsWith("jcuda.") && JCudaTransformer.isCandidate(c.getName().replace('.', '/'))
          && jvm.isModifiableClass(c)) {
        loaded.add(c);
      }
    }
    if (!loaded.isEmpty()) {
      try {
        jvm.retransformClasses(loaded.toArray(new Class<?>[0]));
      } catch (UnmodifiableClassException | RuntimeException e) {
        AgentLog.warnOnce("retransform", "JCuda classes loaded before the agent could not be instrumented: " + e);
      }
    }
    return transformer;
  }

  // Classes, not lambdas, here and in the agent's premain: the first lambda of a JVM costs its
  // invokedynamic bootstrap, and a program that never uses CUDA should not pay for it.

  private static final class CurrentSettings implements Supplier<InterceptorSettings> {
    @Override
    public InterceptorSettings get() {
      return AgentState.current().settings;
    }
  }

  /** Names {@link AdviceWeaving}, and Byte Buddy with it, only when called. */
  private static final class RuntimeWeaver implements Supplier<ClassFileTransformer> {
    @Override
    public ClassFileTransformer get() {
      return AdviceWeaving.transformer();
    }
  }

  /**
   * Flushes and closes the journal of every copy of the interceptor: this one's and those added to
   * the class loaders where the application's JCuda lives.
   */
  public void shutdown() {
    Interception.shutdown();
    JCudaTransformer t = installed;
    if (t != null) {
      t.shutdownCopies();
    }
  }

}
