package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetGlobal;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * Sequence 2: {@code cuModuleGetGlobal} of a {@code __constant__}, a synchronous copy of the first
 * coefficients into it, a kernel that reads them (late, after spinning), a synchronous copy of the
 * second coefficients, a second launch, and a read of both outputs. A synchronous host-to-device copy
 * on the legacy stream starts after the earlier kernel completes: the first output uses the first
 * coefficients only.
 */
public final class ConstantMemoryProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "constant");
    CUmodule module = Sequence.loadSemantics();
    CUfunction constantAxpb = Sequence.function(module, "constant_axpb");
    CUdeviceptr coef = new CUdeviceptr();
    long[] size = {0};
    seq.rc("cuModuleGetGlobal", cuModuleGetGlobal(coef, size, module, "scale_coef"));
    System.out.println("result scale_coef bytes " + size[0]);
    seq.repeat(rep -> {
      CUdeviceptr in = alloc(BYTES);
      CUdeviceptr first = alloc(BYTES);
      CUdeviceptr second = alloc(BYTES);
      float[] input = Sequence.ramp(rep);
      cuMemcpyHtoD(in, Pointer.to(input), BYTES);
      cuMemcpyHtoD(coef, Pointer.to(new float[] {2f, 1f}), 8);
      seq.rc(rep, "constant_axpb 1", 0, Sequence.launch(constantAxpb, null, first, in, Sequence.N, seq.cycles));
      cuMemcpyHtoD(coef, Pointer.to(new float[] {3f, 5f}), 8);
      seq.rc(rep, "constant_axpb 2", 0, Sequence.launch(constantAxpb, null, second, in, Sequence.N, seq.cycles));
      float[] expectFirst = new float[Sequence.N];
      float[] expectSecond = new float[Sequence.N];
      for (int i = 0; i < Sequence.N; i++) {
        expectFirst[i] = input[i] * 2f + 1f;
        expectSecond[i] = input[i] * 3f + 5f;
      }
      seq.check(rep, "output with the first constants", Sequence.describe(expectFirst),
          Sequence.describe(Sequence.read(first)));
      seq.check(rep, "output with the second constants", Sequence.describe(expectSecond),
          Sequence.describe(Sequence.read(second)));
      Sequence.release(in, first, second);
    });
  }
}
