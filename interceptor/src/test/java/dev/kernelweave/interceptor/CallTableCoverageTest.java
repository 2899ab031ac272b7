package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.CudaCallTable;
import dev.kernelweave.interceptor.cublas.BlasRoutineKind;
import dev.kernelweave.interceptor.driver.JCudaDriverInstrumentation;
import dev.kernelweave.interceptor.runtime.JCudaRuntimeInstrumentation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

/**
 * Every method the driver and runtime instrumentations intercept has a row of the {@link
 * CudaCallTable}, the one its advice is woven with, and every row is intercepted: adding a function
 * is a row and a line of advice, and neither can be forgotten.
 */
class CallTableCoverageTest {

  private static final CudaCallTable TABLE = CudaCallTable.canonical();
  /** Functions with rows for the JCuda versions that have them, which 12.6.0, the one tested, does not. */
  /** Rows for functions of other JCuda versions; {@code (unload)} for an unload without a row (cuModuleUnload has one). */
  private static final Set<String> ABSENT_FROM_THE_JCUDA_TESTED = Set.of("cuStreamBeginCapture_v2",
      "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaGraphLaunch", "(unload)");

  private record Visit(String enter, String exit, ElementMatcher<? super MethodDescription> methods) {}

  private record Intercepted(Method method, Class<?> enterAdvice) {}

  @Test
  void everyDriverMethodInterceptedHasItsRowAndEveryDriverRowIsIntercepted() throws Exception {
    checkCoverage(new JCudaDriverInstrumentation(), "jcuda.driver.JCudaDriver",
        n -> n.startsWith("cu") && !n.startsWith("cuda"));
  }

  @Test
  void everyRuntimeMethodInterceptedHasItsRowAndEveryRuntimeRowIsIntercepted() throws Exception {
    checkCoverage(new JCudaRuntimeInstrumentation(), "jcuda.runtime.JCuda", n -> n.startsWith("cuda"));
  }

  @Test
  void everyFamilyRowIsReachedByAnInterceptedMethodAndEveryCublasRowByARoutineKind() throws Exception {
    Set<String> reached = new TreeSet<>();
    for (Intercepted i : intercepted(new JCudaDriverInstrumentation(), "jcuda.driver.JCudaDriver")) {
      reached.add(TABLE.rowOf(i.method().getName()).name());
    }
    for (Intercepted i : intercepted(new JCudaRuntimeInstrumentation(), "jcuda.runtime.JCuda")) {
      reached.add(TABLE.rowOf(i.method().getName()).name());
    }
    reached.add(TABLE.rowOf("nvrtcSetFlowCallback").name()); // the one family only another library has
    for (BlasRoutineKind kind : BlasRoutineKind.values()) {
      reached.add(TABLE.row(kind.row(false)).name());
      reached.add(TABLE.row(kind.row(true)).name());
    }
    for (CudaCall row : TABLE.rows()) {
      assertTrue(reached.contains(row.name()) || ABSENT_FROM_THE_JCUDA_TESTED.contains(row.name()),
          row + " is no intercepted method's row");
    }
  }

  private static void checkCoverage(Instrumentation instrumentation, String type, Predicate<String> library)
      throws Exception {
    List<Intercepted> all = intercepted(instrumentation, type);
    Set<String> names = new TreeSet<>();
    for (Intercepted i : all) {
      String name = i.method().getName();
      names.add(name);
      int bound = AdviceWeaving.rowOf(new MethodDescription.ForLoadedMethod(i.method()));
      CudaCall row = TABLE.row(bound);
      if (TABLE.hasOwnRow(name)) {
        assertEquals(name, row.name(), "the row " + name + "'s advice is woven with");
      } else {
        assertTrue(row.name().startsWith("("), name + " has no row of its own, so its family's: " + row);
        assertEquals(CallAdvice.PLACED, i.enterAdvice().getName(), name + " is known by name only");
      }
      checkStreamArgument(i, row);
    }
    assertTrue(names.size() > 100, "the instrumentation intercepts every API method: " + names.size());
    Set<String> declared = new TreeSet<>();
    for (Method m : Class.forName(type, false, CallTableCoverageTest.class.getClassLoader()).getDeclaredMethods()) {
      declared.add(m.getName());
    }
    for (CudaCall row : TABLE.rows()) {
      if (TABLE.hasOwnRow(row.name()) && library.test(row.name())) {
        // A row of a function this JCuda lacks is a typo, unless it is one a newer JCuda has.
        assertEquals(!ABSENT_FROM_THE_JCUDA_TESTED.contains(row.name()), declared.contains(row.name()),
            row.name() + " is declared by " + type);
        assertTrue(names.contains(row.name()) || !declared.contains(row.name()), row.name() + " has a row but no advice");
      }
    }
  }

  /** Where a row names a stream argument, its advice reads that argument, and replaces it where it is typed. */
  private static void checkStreamArgument(Intercepted i, CudaCall row) {
    Method enter = enterMethod(i.enterAdvice());
    List<Integer> read = new ArrayList<>();
    for (Parameter p : enter.getParameters()) {
      Advice.Argument argument = p.getAnnotation(Advice.Argument.class);
      if (argument == null) {
        continue;
      }
      read.add(argument.value());
      String typeName = p.getType().getName();
      if (typeName.equals("jcuda.driver.CUstream") || typeName.equals("jcuda.runtime.cudaStream_t")) {
        assertEquals(row.streamArgument(), argument.value(), i.method() + ": the stream its advice replaces");
      }
    }
    if (row.streamArgument() != CudaCall.NONE) {
      assertTrue(read.contains(row.streamArgument()), i.method() + " reads no stream argument " + row.streamArgument());
    }
  }

  private static Method enterMethod(Class<?> advice) {
    for (Method m : advice.getDeclaredMethods()) {
      if (m.isAnnotationPresent(Advice.OnMethodEnter.class)) {
        return m;
      }
    }
    throw new AssertionError(advice + " has no enter advice");
  }

  /** The public static methods of {@code type} an advice of the instrumentation applies to, with that advice. */
  private static List<Intercepted> intercepted(Instrumentation instrumentation, String type) throws Exception {
    List<Visit> visits = new ArrayList<>();
    instrumentation.advise((enter, exit, methods) -> visits.add(new Visit(enter, exit, methods)));
    Class<?> jcuda = Class.forName(type, false, CallTableCoverageTest.class.getClassLoader());
    List<Intercepted> found = new ArrayList<>();
    for (Method m : jcuda.getDeclaredMethods()) {
      if (!Modifier.isPublic(m.getModifiers()) || !Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      MethodDescription description = new MethodDescription.ForLoadedMethod(m);
      List<Visit> matching = visits.stream().filter(v -> v.methods().matches(description)).toList();
      assertTrue(matching.size() <= 1, m + " matches two advices: " + matching);
      if (!matching.isEmpty()) {
        String enter = matching.get(0).enter();
        String qualified = enter.indexOf('.') >= 0 ? enter : instrumentation.getClass().getName() + "$" + enter;
        found.add(new Intercepted(m, Class.forName(qualified)));
      }
    }
    return found;
  }
}
