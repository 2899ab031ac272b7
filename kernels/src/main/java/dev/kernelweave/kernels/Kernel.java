package dev.kernelweave.kernels;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;

import java.util.List;
import java.util.Map;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * A kernel of a loaded module, launched the way JCuda programs do: one {@code Pointer.to(...)} per
 * argument, one-dimensional grid and block, no dynamic shared memory.
 */
public final class Kernel {

  private final String name;
  private final CUfunction function;
  private final List<Ptx.Param> params;

  Kernel(String name, CUfunction function, List<Ptx.Param> params) {
    this.name = name;
    this.function = function;
    this.params = params;
  }

  /**
   * The kernel {@code name} of {@code module} ({@code cuModuleGetFunction}), whose PTX declares the
   * entry points {@code entries} (see {@link Ptx#entries}); throws {@link IllegalArgumentException}
   * before any CUDA call when it declares no such kernel.
   */
  public static Kernel find(CUmodule module, Map<String, List<Ptx.Param>> entries, String name) {
    List<Ptx.Param> params = entries.get(name);
    if (params == null) {
      throw new IllegalArgumentException("no kernel " + name + " in the module; it has " + entries.keySet());
    }
    CUfunction function = new CUfunction();
    cuModuleGetFunction(function, module, name);
    return new Kernel(name, function, params);
  }

  /** The entry point's name. */
  public String name() {
    return name;
  }

  /**
   * Launches {@code blocks} blocks of {@code threads} threads on {@code stream} (null: the default
   * stream). Arguments are {@link CUdeviceptr}, {@link Integer} or {@link Float}, in the order and
   * of the kinds the PTX declares; anything else throws before the launch.
   */
  public void launch(int blocks, int threads, CUstream stream, Object... args) {
    check(name, params, args);
    NativePointerObject[] pointers = new NativePointerObject[args.length];
    for (int i = 0; i < args.length; i++) {
      Object arg = args[i];
      if (arg instanceof CUdeviceptr) {
        pointers[i] = Pointer.to((CUdeviceptr) arg);
      } else if (arg instanceof Integer) {
        pointers[i] = Pointer.to(new int[] {(Integer) arg});
      } else {
        pointers[i] = Pointer.to(new float[] {(Float) arg});
      }
    }
    cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, stream, Pointer.to(pointers), null);
  }

  /** Throws {@link IllegalArgumentException} unless {@code args} match {@code params}. */
  static void check(String name, List<Ptx.Param> params, Object[] args) {
    if (args.length != params.size()) {
      throw new IllegalArgumentException(
          name + " takes " + params.size() + " arguments, " + args.length + " given");
    }
    for (int i = 0; i < args.length; i++) {
      Object arg = args[i];
      boolean fits;
      switch (params.get(i)) {
        case POINTER:
          fits = arg instanceof CUdeviceptr;
          break;
        case INT:
          fits = arg instanceof Integer;
          break;
        default:
          fits = arg instanceof Float;
          break;
      }
      if (!fits) {
        throw new IllegalArgumentException(
            name
                + " argument "
                + i
                + " must be "
                + params.get(i)
                + ", got "
                + (arg == null ? "null" : arg.getClass().getSimpleName()));
      }
    }
  }
}
