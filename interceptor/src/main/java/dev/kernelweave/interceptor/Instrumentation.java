package dev.kernelweave.interceptor;

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

  /** Receives the advice of an instrumentation. */
  interface Visitor {
    /**
     * @param adviceName the simple name of an advice class nested in the instrumentation
     * @param methods the methods it applies to; no method may match two advices
     */
    void visit(String adviceName, ElementMatcher<? super MethodDescription> methods);
  }
}
