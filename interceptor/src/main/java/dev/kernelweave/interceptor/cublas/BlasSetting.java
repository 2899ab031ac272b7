package dev.kernelweave.interceptor.cublas;

import static dev.kernelweave.text.ConstantNames.constantNamed;

/**
 * The integer settings of a cuBLAS handle that change what its routines compute or how they read
 * their scalars, as JCublas 12.6.0 exposes them. A handle starts with every one at 0 (host pointer
 * mode, default math, atomics not allowed, no SM count target). The workspace and the stream are
 * handle settings too, handled apart ({@link ShadowHandles}).
 */
public enum BlasSetting {
  POINTER_MODE("cublasSetPointerMode"),
  MATH_MODE("cublasSetMathMode"),
  ATOMICS_MODE("cublasSetAtomicsMode"),
  SM_COUNT_TARGET("cublasSetSmCountTarget");

  /** The value of every setting in a newly created handle. */
  public static final int INITIAL = 0;

  private static final BlasSetting[] ALL = values();

  private final String setter;

  BlasSetting(String setter) {
    this.setter = setter;
  }

  /** The {@code JCublas2} method that sets it, with the handle and the value as parameters. */
  public String setter() {
    return setter;
  }

  /** The setting a {@code JCublas2} method sets, or null when it sets none of them. */
  public static BlasSetting ofSetter(String methodName) {
    return constantNamed(ALL, BlasSetting::setter, methodName);
  }
}
