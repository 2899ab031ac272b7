package dev.kernelweave.interceptor;

import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.CudaCallTable;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The advice for one JCuda class. Types and advice are named, never referenced as class literals,
 * so that installing the agent loads none of JCuda's classes (their static initializers load
 * native libraries).
 */
public interface Instrumentation {

  /** The instrumented classes, matched by name, for example {@code jcuda.driver.JCudaDriver}. */
  ElementMatcher<? super TypeDescription> types();

  /** Names each advice class (nested in the implementation) and the methods it applies to. */
  void advise(Visitor visitor);

  /**
   * The functions of the {@code CudaCallTable} with a row of their own whose names {@code library}
   * accepts: those an instrumentation gives advice of their own, leaving the rest to their family's row.
   */
  static String[] functionsWithOwnRows(java.util.function.Predicate<String> library) {
    CudaCallTable table = CudaCallTable.canonical();
    return table.rows().stream().map(CudaCall::name).filter(table::hasOwnRow).filter(library).toArray(String[]::new);
  }

  /**
   * Receives the advice of an instrumentation. An advice name is the simple name of a class nested
   * in the instrumentation, or a class's full name ({@link CallAdvice#END}).
   */
  interface Visitor {
    /**
     * @param enterAdvice the class whose {@code @OnMethodEnter} runs before the call
     * @param exitAdvice the class whose {@code @OnMethodExit} runs after it
     * @param methods the methods they apply to; no method may match two advices
     */
    void visit(String enterAdvice, String exitAdvice, ElementMatcher<? super MethodDescription> methods);

    /** Advice whose one class has both the enter and the exit. */
    default void visit(String advice, ElementMatcher<? super MethodDescription> methods) {
      visit(advice, advice, methods);
    }

    /** Advice whose exit is the common end of a call, {@link CallAdvice#END}. */
    default void visitEndingCommonly(String enterAdvice, ElementMatcher<? super MethodDescription> methods) {
      visit(enterAdvice, CallAdvice.END, methods);
    }
  }
}
