package dev.kernelweave.text;

import java.util.function.Function;

/**
 * Finding the constant of an enum that a text names: an option's value, a code of a generated table,
 * a method name. Each enum says which of its texts names a constant; the search is the same for all.
 */
public final class ConstantNames {
  private ConstantNames() {}

  /** The first of {@code constants} whose {@code nameOf} equals {@code name}; null for none (or a null name). */
  public static <E> E constantNamed(E[] constants, Function<? super E, String> nameOf, String name) {
    for (E constant : constants) {
      if (nameOf.apply(constant).equals(name)) {
        return constant;
      }
    }
    return null;
  }
}
