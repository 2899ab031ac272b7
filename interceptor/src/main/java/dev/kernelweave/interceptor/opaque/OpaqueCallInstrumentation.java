package dev.kernelweave.interceptor.opaque;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameMatches;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.CallClassification;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Instrumentation;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Every other JCuda library (cuFFT, cuSPARSE, cuRAND, cuSOLVER, cuDNN, NVRTC, the legacy cuBLAS
 * API...): each call is journaled, and each one that may touch the device is a full barrier, since
 * the agent cannot see what it reads and writes. NVRTC compiles on the host and passes.
 */
public final class OpaqueCallInstrumentation implements Instrumentation {

  @Override
  public ElementMatcher<? super TypeDescription> types() {
    return nameMatches("jcuda\\.[a-z0-9]+\\.J[A-Za-z0-9]+")
        .and(not(named("jcuda.driver.JCudaDriver")))
        .and(not(named("jcuda.runtime.JCuda")))
        .and(not(named("jcuda.jcublas.JCublas2")));
  }

  @Override
  public void advise(Visitor visitor) {
    visitor.visit("Opaque", isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class))
        .and(nameMatches("(cu|nv|cudnn).*")));
  }

  static final class Opaque {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      CallClassification c = CallClassification.of(name);
      CallRecord r = Calls.begin(c.kind(), name, 0L);
      Calls.place(r, c.placement());
      return r;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
    }
  }
}
