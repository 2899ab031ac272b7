package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * A synchronous {@code cuMemcpyHtoD} from a Java array, which the agent stages and issues
 * asynchronously: the program overwrites the array as soon as the call returns; the copy must land
 * after a slow kernel still writing its destination and carry the array's values at the call; it must
 * still complete earlier legacy-stream work the host can see (a copy into pinned memory); a copy
 * reaching past its allocation must fail with CUDA's error code, as without the agent.
 */
public final class StagedCopyProgram {

  /** Floats of the large copy: 1.2 MB, more than four of the agent's staging pieces. */
  private static final int LARGE_FLOATS = 300_000;

  /** The array's hash and its ends: enough to tell any piece missing or stale. */
  private static String summary(float[] a) {
    return Integer.toHexString(Arrays.hashCode(a)) + " " + a[0] + ".." + a[a.length - 1];
  }

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "staged");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    seq.repeat(rep -> {
      CUdeviceptr x = alloc(BYTES);
      CUdeviceptr y = alloc(BYTES);
      Pointer pinned = allocHost(BYTES);
      Sequence.fill(pinned, -1f);

      // A slow kernel writes x; a copy of y into pinned memory follows it on the legacy stream.
      float value = 100f * rep + 1f;
      seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, null, y, value, Sequence.N, seq.cycles));
      seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(pinned, y, BYTES, null));
      seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, null, x, value + 1, Sequence.N, seq.cycles));
      float[] source = Sequence.ramp(value + 2);
      float[] expected = source.clone();
      seq.rc(rep, "cuMemcpyHtoD", 0, cuMemcpyHtoD(x, Pointer.to(source), BYTES));
      // Host-visible work CUDA completed before the synchronous copy returned.
      seq.check(rep, "pinned copy of y after a synchronous copy into x", Sequence.describe(Sequence.ramp(value)),
          Sequence.describe(Sequence.floats(pinned)));
      Arrays.fill(source, -7f); // the array may be reused once the call returned
      seq.check(rep, "x after the copy, its source overwritten", Sequence.describe(expected),
          Sequence.describe(Sequence.read(x)));

      // Large copies: one made while nothing is pending (the agent leaves it to CUDA), one behind a slow
      // kernel still writing its destination (the agent stages it in several pieces, and a last,
      // shorter one, queued after the kernel): both land whole, with the array's values at the call.
      CUdeviceptr z = alloc(4L * LARGE_FLOATS);
      float[] back = new float[LARGE_FLOATS];
      for (int pending = 0; pending < 2; pending++) {
        float[] large = new float[LARGE_FLOATS];
        for (int i = 0; i < large.length; i++) {
          large[i] = value + pending + 0.5f * i;
        }
        String largeExpected = summary(large);
        if (pending == 1) {
          seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, null, z, value + 3, Sequence.N, seq.cycles));
        }
        seq.rc(rep, "cuMemcpyHtoD of 1.2 MB", 0, cuMemcpyHtoD(z, Pointer.to(large), 4L * LARGE_FLOATS));
        Arrays.fill(large, -7f);
        cuMemcpyDtoH(Pointer.to(back), z, 4L * LARGE_FLOATS);
        seq.check(rep, "a large copy " + (pending == 1 ? "behind a kernel" : "alone") + ", its source overwritten",
            largeExpected, summary(back));
      }
      cuMemFree(z);

      // A destination reaching past its allocation: CUDA's error, whatever the agent does.
      seq.rc(rep, "cuMemcpyHtoD past the allocation", 1, cuMemcpyHtoD(x.withByteOffset(4), Pointer.to(source), BYTES));
      Sequence.release(pinned, x, y);
    });
  }
}
