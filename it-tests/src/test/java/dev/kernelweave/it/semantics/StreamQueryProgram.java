package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamQuery;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;

/**
 * Sequence 8: {@code cuStreamQuery} and {@code cuEventQuery} right after a long kernel answer
 * {@code CUDA_ERROR_NOT_READY} (600) at once; polling until they answer 0 then sees the kernel's
 * values.
 */
public final class StreamQueryProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "query");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    seq.repeat(rep -> {
      CUstream s = stream(0);
      CUdeviceptr x = alloc(BYTES);
      CUevent event = event(0);
      float value = 5f * rep;
      // Long enough that no host is this late: 20 times the other sequences' kernels.
      seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, x, value, Sequence.N, 20 * seq.cycles));
      seq.rc(rep, "cuStreamQuery right after the launch", CUresult.CUDA_ERROR_NOT_READY, cuStreamQuery(s));
      seq.rc(rep, "cuEventRecord", 0, cuEventRecord(event, s));
      seq.rc(rep, "cuEventQuery right after the record", CUresult.CUDA_ERROR_NOT_READY, cuEventQuery(event));
      long deadline = System.nanoTime() + seq.timeoutMs * 1_000_000L;
      int stream;
      while ((stream = cuStreamQuery(s)) == CUresult.CUDA_ERROR_NOT_READY && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      seq.rc(rep, "cuStreamQuery polled", 0, stream);
      int event2;
      while ((event2 = cuEventQuery(event)) == CUresult.CUDA_ERROR_NOT_READY && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      seq.rc(rep, "cuEventQuery polled", 0, event2);
      seq.check(rep, "x", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.read(x)));
      Sequence.release(event, x, s);
    });
  }
}
