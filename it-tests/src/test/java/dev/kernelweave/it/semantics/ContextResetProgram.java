package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxReset;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Sequence 9: work on the primary context, {@code cuDevicePrimaryCtxReset}, the primary context
 * retained and made current again (its handle may be the same), then new work on new streams and
 * the legacy stream. Every call after the reset succeeds and every value is the kernel's.
 */
public final class ContextResetProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "reset");
    seq.repeat(rep -> {
      for (int phase = 0; phase < 2; phase++) {
        String p = "phase " + phase + ": ";
        CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
        CUfunction slowAxpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
        CUstream s = new CUstream();
        seq.rc(rep, p + "cuStreamCreate", 0, cuStreamCreate(s, 0));
        CUdeviceptr x = new CUdeviceptr();
        seq.rc(rep, p + "cuMemAlloc", 0, cuMemAlloc(x, BYTES));
        Pointer pinned = new Pointer();
        seq.rc(rep, p + "cuMemAllocHost", 0, cuMemAllocHost(pinned, BYTES));
        float value = 100f * rep + phase;
        seq.rc(rep, p + "slow_fill on s", 0, Sequence.launch(slowFill, s, x, value, Sequence.N, seq.cycles));
        seq.rc(rep, p + "cuMemcpyDtoHAsync on s", 0, cuMemcpyDtoHAsync(pinned, x, BYTES, s));
        seq.rc(rep, p + "cuStreamSynchronize", 0, cuStreamSynchronize(s));
        seq.check(rep, p + "pinned", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.floats(pinned)));
        seq.rc(rep, p + "slow_axpb on null", 0, Sequence.launch(slowAxpb, null, x, 2f, 0f, Sequence.N, seq.cycles));
        float[] doubled = Sequence.ramp(value);
        for (int i = 0; i < Sequence.N; i++) {
          doubled[i] *= 2f;
        }
        seq.check(rep, p + "x", Sequence.describe(doubled), Sequence.describe(Sequence.read(x)));
        if (phase == 0) {
          // The reset frees everything of the context; the next phase makes everything anew.
          seq.rc(rep, "cuDevicePrimaryCtxReset", 0, cuDevicePrimaryCtxReset(seq.device));
          seq.retainPrimary();
        } else {
          seq.rc(rep, p + "cuStreamDestroy", 0, cuStreamDestroy(s));
          seq.rc(rep, p + "cuMemFreeHost", 0, cuMemFreeHost(pinned));
          seq.rc(rep, p + "cuMemFree", 0, cuMemFree(x));
        }
      }
    });
  }
}
