package dev.kernelweave.interceptor.cublas;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The public static methods of {@code jcuda.jcublas.JCublas2}, loaded without initializing the class (its initializer loads natives). */
final class JCublas2Reflection {

  static final String CLASS_NAME = "jcuda.jcublas.JCublas2";

  private JCublas2Reflection() {}

  static Class<?> jcublas2() {
    try {
      return Class.forName(CLASS_NAME, false, JCublas2Reflection.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new AssertionError("JCublas2 must be on the test class path (provided dependency)", e);
    }
  }

  static List<Method> publicStaticMethods() {
    List<Method> methods = new ArrayList<>();
    for (Method m : jcublas2().getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers())) {
        methods.add(m);
      }
    }
    methods.sort(Comparator.comparing(Method::getName));
    return methods;
  }

  static String descriptor(Method m) {
    return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
  }
}
