package dev.kernelweave.interceptor.cublas;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
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

/** {@code jcuda.jcublas.JCublas2}: handles, streams, pointer modes and every routine. */
public final class JCublas2Instrumentation implements Instrumentation {

  @Override
  public ElementMatcher<? super TypeDescription> types() {
    return named("jcuda.jcublas.JCublas2");
  }

  @Override
  public void advise(Visitor visitor) {
    visitor.visit("Classified",
        isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class)).and(nameStartsWith("cublas")));
  }

  static final class Classified {
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
