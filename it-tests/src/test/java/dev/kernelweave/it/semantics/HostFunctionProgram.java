package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuLaunchHostFunc;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUhostFn;
import jcuda.driver.CUstream;

/**
 * Sequence 6: a slow kernel, then {@code cuLaunchHostFunc(s, f)} where {@code f} waits (at most
 * {@code --timeout-ms}) for the host to act after the enqueue returns. {@code cuLaunchHostFunc} is
 * asynchronous: it returns before {@code f} has run, the host then lets {@code f} go, and {@code f}
 * sees it.
 */
public final class HostFunctionProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "hostfunc");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    seq.repeat(rep -> {
      CUstream s = stream(0);
      CUdeviceptr x = alloc(BYTES);
      CountDownLatch hostActed = new CountDownLatch(1);
      AtomicBoolean finished = new AtomicBoolean();
      AtomicBoolean sawHost = new AtomicBoolean();
      CUhostFn f = data -> {
        try {
          sawHost.set(hostActed.await(seq.timeoutMs, TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        finished.set(true);
      };
      seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, x, 3f, Sequence.N, seq.cycles));
      int code = cuLaunchHostFunc(s, f, null);
      boolean returnedFirst = !finished.get();
      hostActed.countDown();
      seq.rc(rep, "cuLaunchHostFunc", 0, code);
      seq.check(rep, "cuLaunchHostFunc returned before the host function finished", true, returnedFirst);
      seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
      seq.check(rep, "host function ran by the synchronize", true, finished.get());
      seq.check(rep, "host function saw the host act after the enqueue", true, sawHost.get());
      seq.check(rep, "x", Sequence.describe(Sequence.ramp(3f)), Sequence.describe(Sequence.read(x)));
      Sequence.release(x, s);
    });
  }
}
