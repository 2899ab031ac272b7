package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Sequence 1: a kernel writes {@code x} and {@code cuMemcpyDtoHAsync} copies it into pinned memory,
 * on the legacy stream ({@code --variant legacy}) or on a blocking stream of {@code cuStreamCreate(s,
 * 0)} ({@code --variant blocking}); then a synchronous {@code cuMemcpyDtoH} of another buffer
 * {@code y}; then the host reads the pinned memory. The synchronous copy runs on the legacy stream,
 * so it completes all earlier legacy-stream and blocking-stream work: the pinned memory holds x.
 */
public final class LegacySyncCopyProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "legacy");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    seq.repeat(rep -> {
      CUstream stream = null;
      if (seq.variant.equals("blocking")) {
        stream = new CUstream();
        seq.rc(rep, "cuStreamCreate", 0, cuStreamCreate(stream, 0));
      }
      CUdeviceptr x = alloc(BYTES);
      CUdeviceptr y = alloc(BYTES);
      Pointer pinned = allocHost(BYTES);
      Sequence.fill(pinned, -1f);
      float[] yValues = Sequence.ramp(7f);
      cuMemcpyHtoD(y, Pointer.to(yValues), BYTES);
      float value = 100f * rep + 1f;
      seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, stream, x, value, Sequence.N, seq.cycles));
      seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(pinned, x, BYTES, stream));
      float[] yBack = Sequence.read(y);
      seq.check(rep, "pinned copy of x after a synchronous copy of y", Sequence.describe(Sequence.ramp(value)),
          Sequence.describe(Sequence.floats(pinned)));
      seq.check(rep, "y", Sequence.describe(yValues), Sequence.describe(yBack));
      Sequence.release(pinned, x, y);
      if (stream != null) {
        cuStreamDestroy(stream);
      }
    });
  }
}
