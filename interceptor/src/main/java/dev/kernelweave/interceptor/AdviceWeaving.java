package dev.kernelweave.interceptor;

import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.kernelweave.interceptor.cublas.JCublas2Instrumentation;
import dev.kernelweave.interceptor.driver.JCudaDriverInstrumentation;
import dev.kernelweave.interceptor.opaque.OpaqueCallInstrumentation;
import dev.kernelweave.interceptor.runtime.JCudaRuntimeInstrumentation;
import dev.kernelweave.calltable.CudaCallTable;
import java.lang.instrument.ClassFileTransformer;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.ParameterDescription;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.utility.JavaModule;

/**
 * How the advice of every {@link Instrumentation} is woven into JCuda's classes, with Byte Buddy:
 * by the build, ahead of time, and at run time for a JCuda the agent was not built against. The
 * only class of the installation that names Byte Buddy, so that an agent that finds its JCuda
 * woven already loads none of it.
 */
public final class AdviceWeaving {

  private AdviceWeaving() {}

  /** The instrumentations, one per JCuda library class family. */
  public static List<Instrumentation> instrumentations() {
    return List.of(
        new JCudaDriverInstrumentation(),
        new JCudaRuntimeInstrumentation(),
        new JCublas2Instrumentation(),
        new OpaqueCallInstrumentation());
  }

  /** A transformer that weaves the advice into the classes it is given, and leaves every other alone. */
  public static ClassFileTransformer transformer() {
    return builder().makeRaw();
  }

  /** The Byte Buddy configuration; a type validation would only cost time, the advice is checked by the tests. */
  static AgentBuilder builder() {
    AgentBuilder agent = new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
        .disableClassFormatChanges()
        .with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
        .with(new TransformErrors())
        .ignore(not(nameStartsWith("jcuda.")));
    ClassLoader agentLoader = AdviceWeaving.class.getClassLoader();
    for (Instrumentation instrumentation : instrumentations()) {
      AgentBuilder.Transformer.ForAdvice[] advice = {
          new AgentBuilder.Transformer.ForAdvice(Advice.withCustomMapping().bind(new CallRowBinding()))
              .include(agentLoader)};
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

  /**
   * Binds {@link CallRow}: the id of the intercepted method's row, by its name, as a constant.
   * Prewoven classes carry these ids: {@code CudaCallTable} only ever adds rows at the end.
   */
  static final class CallRowBinding implements Advice.OffsetMapping.Factory<CallRow> {
    @Override
    public Class<CallRow> getAnnotationType() {
      return CallRow.class;
    }

    @Override
    public Advice.OffsetMapping make(ParameterDescription.InDefinedShape target,
        AnnotationDescription.Loadable<CallRow> annotation, AdviceType adviceType) {
      if (!target.getType().represents(int.class)) {
        throw new IllegalStateException("@CallRow is an int, not " + target.getType() + ": " + target);
      }
      return (instrumentedType, instrumentedMethod, assigner, argumentHandler, sort) ->
          Advice.OffsetMapping.Target.ForStackManipulation.of(rowOf(instrumentedMethod));
    }
  }

  /** The row id the advice of a method is woven with. */
  static int rowOf(MethodDescription method) {
    return CudaCallTable.canonical().idOf(method.getName());
  }

  /** Reports a class the agent failed to instrument: its calls then pass through unseen. */
  private static final class TransformErrors extends AgentBuilder.Listener.Adapter {
    @Override
    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
      AgentLog.warnOnce("transform-" + typeName, "could not instrument " + typeName + ", its calls are not seen: " + error);
    }
  }
}
