package dev.kernelweave.interceptor;

import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.kernelweave.interceptor.cublas.JCublas2Instrumentation;
import dev.kernelweave.interceptor.driver.JCudaDriverInstrumentation;
import dev.kernelweave.interceptor.opaque.OpaqueCallInstrumentation;
import dev.kernelweave.interceptor.runtime.JCudaRuntimeInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

/**
 * Installs the advice of every {@link Instrumentation} on JCuda's classes, matched by name: a
 * program that never loads JCuda is not touched, and classes already loaded are retransformed.
 */
public final class InterceptorInstaller {

  /** The instrumentations, one per JCuda library class family. */
  public static final List<Instrumentation> INSTRUMENTATIONS = List.of(
      new JCudaDriverInstrumentation(),
      new JCudaRuntimeInstrumentation(),
      new JCublas2Instrumentation(),
      new OpaqueCallInstrumentation());

  private InterceptorInstaller() {}

  /** Installs on the JVM; the returned transformer can be reset in tests. */
  public static ResettableClassFileTransformer install(java.lang.instrument.Instrumentation jvm) {
    return builder().installOn(jvm);
  }

  static AgentBuilder builder() {
    AgentBuilder agent = new AgentBuilder.Default()
        .disableClassFormatChanges()
        .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
        .with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
        .with(new TransformErrors())
        .ignore(not(nameStartsWith("jcuda.")));
    ClassLoader agentLoader = InterceptorInstaller.class.getClassLoader();
    for (Instrumentation instrumentation : INSTRUMENTATIONS) {
      AgentBuilder.Transformer.ForAdvice[] advice = {new AgentBuilder.Transformer.ForAdvice().include(agentLoader)};
      String prefix = instrumentation.getClass().getName() + "$";
      instrumentation.advise((enter, exit, methods) ->
          advice[0] = advice[0].advice(methods, qualified(prefix, enter), qualified(prefix, exit)));
      agent = agent.type(instrumentation.types()).transform(advice[0]);
    }
    return agent;
  }

  private static String qualified(String prefix, String advice) {
    return advice.indexOf('.') >= 0 ? advice : prefix + advice;
  }

  /** Reports a class the agent failed to instrument: its calls then pass through unseen. */
  private static final class TransformErrors extends AgentBuilder.Listener.Adapter {
    @Override
    public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded,
        DynamicType dynamicType) {
      AgentLog.debug("instrumented " + type.getName());
    }

    @Override
    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
      AgentLog.warnOnce("transform-" + typeName, "could not instrument " + typeName + ", its calls are not seen: " + error);
    }
  }
}
