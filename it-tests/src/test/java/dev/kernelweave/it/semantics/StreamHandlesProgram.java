package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static jcuda.driver.JCudaDriver.CU_STREAM_LEGACY;
import static jcuda.driver.JCudaDriver.CU_STREAM_PER_THREAD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Sequence 4: a kernel writes {@code x}, {@code cuMemcpyDtoHAsync} copies it into pinned memory,
 * then {@code cuStreamSynchronize}, and the host reads the pinned memory; with the stream handles
 * that name the same stream: null and {@code CU_STREAM_LEGACY} (0x1) are the legacy stream,
 * {@code CU_STREAM_PER_THREAD} (0x2) the calling thread's stream, and the per-thread stream is
 * blocking, so legacy-stream work waits for it.
 */
public final class StreamHandlesProgram {

  private record Case(String name, CUstream kernel, CUstream copy, CUstream sync) {}

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "handles");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    Case[] cases = {
        new Case("null then sync 0x1", null, null, CU_STREAM_LEGACY),
        new Case("0x1 then sync null", CU_STREAM_LEGACY, CU_STREAM_LEGACY, null),
        new Case("0x2 then sync 0x2", CU_STREAM_PER_THREAD, CU_STREAM_PER_THREAD, CU_STREAM_PER_THREAD),
        new Case("kernel on 0x2, copy on null, sync 0x1", CU_STREAM_PER_THREAD, null, CU_STREAM_LEGACY),
    };
    seq.repeat(rep -> {
      for (int c = 0; c < cases.length; c++) {
        Case k = cases[c];
        CUdeviceptr x = alloc(BYTES);
        Pointer pinned = allocHost(BYTES);
        Sequence.fill(pinned, -1f);
        float value = 1000f * rep + 10f * c;
        seq.rc(rep, k.name + ": slow_fill", 0, Sequence.launch(slowFill, k.kernel, x, value, Sequence.N, seq.cycles));
        seq.rc(rep, k.name + ": cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(pinned, x, BYTES, k.copy));
        seq.rc(rep, k.name + ": cuStreamSynchronize", 0, cuStreamSynchronize(k.sync));
        seq.check(rep, k.name + ": pinned", Sequence.describe(Sequence.ramp(value)),
            Sequence.describe(Sequence.floats(pinned)));
        Sequence.release(pinned, x);
      }
    });
  }
}
