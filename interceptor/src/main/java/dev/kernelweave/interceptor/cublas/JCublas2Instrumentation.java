package dev.kernelweave.interceptor.cublas;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Instrumentation;
import dev.kernelweave.interceptor.IssuedByAgent;
import jcuda.jcublas.cublasHandle;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code jcuda.jcublas.JCublas2}: every routine with its operands' roles, handles, streams and
 * pointer modes. {@link BlasCalls} looks each method up by name and descriptor; the advice of the
 * methods that take a handle also hands the real call the handle {@link BlasCalls#handle} picks
 * (the shadow of the agent's stream a routine was placed on).
 */
public final class JCublas2Instrumentation implements Instrumentation {

  @Override
  public ElementMatcher<? super TypeDescription> types() {
    return named("jcuda.jcublas.JCublas2");
  }

  @Override
  public void advise(Visitor visitor) {
    var wrappers = isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class)).and(nameStartsWith("cublas"));
    var takesHandle = takesArgument(0, named("jcuda.jcublas.cublasHandle"));
    visitor.visit("Routine", "Call", wrappers.and(takesHandle));
    visitor.visit("Call", wrappers.and(not(takesHandle)));
  }

  static final class Routine {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = IssuedByAgent.class)
    static Object enter(@Advice.Origin("#m") String name, @Advice.Origin("#d") String descriptor,
        @Advice.AllArguments Object[] args, @Advice.Argument(value = 0, readOnly = false) cublasHandle handle) {
      Object entered = BlasCalls.enter(name, descriptor, args);
      if (entered instanceof CallRecord r) {
        handle = BlasCalls.handle(r, handle);
      }
      return entered;
    }
  }

  static final class Call {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = IssuedByAgent.class)
    static Object enter(@Advice.Origin("#m") String name, @Advice.Origin("#d") String descriptor,
        @Advice.AllArguments Object[] args) {
      return BlasCalls.enter(name, descriptor, args);
    }

    /** Ends the call; a routine the launch windows hold returns success, as JCuda's launch does. */
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object entered, @Advice.Origin("#m") String name,
        @Advice.Origin("#d") String descriptor, @Advice.AllArguments Object[] args,
        @Advice.Return(readOnly = false) int result, @Advice.Thrown Throwable thrown) {
      if (entered instanceof IssuedByAgent held) {
        result = Calls.endIssuedByAgent(held);
      } else {
        BlasCalls.exit((CallRecord) entered, name, descriptor, args, result, thrown);
      }
    }
  }
}
