package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Sequence 5: host memory page-locked with {@code cuMemHostRegister}; on one stream, a slow kernel
 * writes {@code a}, {@code cuMemcpyHtoDAsync(a, registered)} then {@code cuMemcpyDtoHAsync(registered,
 * b)}. Stream order puts the upload before the download: {@code a} gets the host's first contents,
 * the registered memory {@code b}'s.
 */
public final class RegisteredMemoryProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "registered");
    CUfunction slowAxpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    seq.repeat(rep -> {
      ByteBuffer buffer = ByteBuffer.allocateDirect((int) BYTES).order(ByteOrder.nativeOrder());
      float[] hostValues = Sequence.ramp(0.5f + rep);
      buffer.asFloatBuffer().put(hostValues);
      Pointer registered = Pointer.to(buffer);
      seq.rc(rep, "cuMemHostRegister", 0, cuMemHostRegister(registered, BYTES, 0));
      CUstream s = stream(0);
      CUdeviceptr a = alloc(BYTES);
      CUdeviceptr b = alloc(BYTES);
      float[] bValues = Sequence.ramp(50f + rep);
      cuMemcpyHtoD(a, Pointer.to(new float[Sequence.N]), BYTES);
      cuMemcpyHtoD(b, Pointer.to(bValues), BYTES);
      seq.rc(rep, "slow_axpb", 0, Sequence.launch(slowAxpb, s, a, 2f, 1f, Sequence.N, seq.cycles));
      seq.rc(rep, "cuMemcpyHtoDAsync", 0, cuMemcpyHtoDAsync(a, registered, BYTES, s));
      seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(registered, b, BYTES, s));
      seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
      float[] back = new float[Sequence.N];
      buffer.asFloatBuffer().get(back);
      seq.check(rep, "registered memory", Sequence.describe(bValues), Sequence.describe(back));
      seq.check(rep, "a", Sequence.describe(hostValues), Sequence.describe(Sequence.read(a)));
      seq.rc(rep, "cuMemHostUnregister", 0, cuMemHostUnregister(registered));
      Sequence.release(a, b, s);
    });
  }
}
