package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * Sequence 3: a kernel that writes through a pointer stored in device memory (its only parameter is
 * the table holding that pointer), then a synchronous read of the target. The kernel comes from the
 * PTX ({@code --variant ptx}, for the agent's {@code ptx=off}), from an sm_90 cubin
 * ({@code --variant cubin}) or from an sm_90 fatbin without PTX ({@code --variant fatbin}). The read
 * runs on the legacy stream after the kernel: it sees the kernel's values.
 */
public final class IndirectWriteProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "ptx");
    String image = switch (seq.variant) {
      case "ptx" -> "/ptx/semantics.ptx";
      case "cubin" -> "/cubin/semantics.sm_90.cubin";
      case "fatbin" -> "/cubin/semantics.sm_90.fatbin";
      default -> throw new IllegalArgumentException("variant ptx, cubin or fatbin: " + seq.variant);
    };
    CUfunction indirectFill = Sequence.function(Sequence.load(image), "indirect_fill");
    seq.repeat(rep -> {
      CUdeviceptr target = alloc(BYTES);
      CUdeviceptr table = alloc(Sizeof.POINTER);
      cuMemcpyHtoD(target, Pointer.to(Sequence.ramp(-5000f)), BYTES);
      cuMemcpyHtoD(table, Pointer.to(target), Sizeof.POINTER);
      float value = 10f * rep + 3f;
      seq.rc(rep, "indirect_fill", 0, Sequence.launch(indirectFill, null, table, value, Sequence.N, seq.cycles));
      seq.check(rep, "target", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.read(target)));
      Sequence.release(table, target);
    });
  }
}
