package dev.kernelweave.interceptor.opaque;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameMatches;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

import dev.kernelweave.interceptor.CallAdvice;
import dev.kernelweave.interceptor.Instrumentation;
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
    visitor.visitEndingCommonly(CallAdvice.PLACED,
        isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class)).and(nameMatches("(cu|nv|cudnn).*")));
  }
}
