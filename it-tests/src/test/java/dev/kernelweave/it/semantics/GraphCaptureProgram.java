package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamIsCapturing;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;

/**
 * Sequence 7: {@code cuStreamBeginCapture} on a stream of {@code cuStreamCreate(s, 0)}, three
 * kernels and a memset captured, {@code cuStreamEndCapture}, {@code cuGraphInstantiate}, two
 * {@code cuGraphLaunch}es. Captured work does not run: the buffers are unchanged after the capture;
 * each launch runs it once, in stream order.
 */
public final class GraphCaptureProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "capture");
    CUfunction slowAxpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    seq.repeat(rep -> {
      CUstream s = stream(0);
      CUdeviceptr x = alloc(BYTES);
      CUdeviceptr y = alloc(BYTES);
      float[] start = Sequence.ramp(rep);
      cuMemcpyHtoD(x, Pointer.to(start), BYTES);
      cuMemcpyHtoD(y, Pointer.to(start), BYTES);
      seq.rc(rep, "cuStreamBeginCapture", 0, cuStreamBeginCapture(s, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL));
      int[] status = {-1};
      seq.rc(rep, "cuStreamIsCapturing", 0, cuStreamIsCapturing(s, status));
      seq.check(rep, "capture status", 1, status[0]);
      seq.rc(rep, "slow_axpb x", 0, Sequence.launch(slowAxpb, s, x, 2f, 1f, Sequence.N, seq.cycles));
      seq.rc(rep, "cuMemsetD32Async y", 0, cuMemsetD32Async(y, Float.floatToIntBits(3f), Sequence.N, s));
      seq.rc(rep, "slow_axpb y", 0, Sequence.launch(slowAxpb, s, y, 2f, 1f, Sequence.N, seq.cycles));
      seq.rc(rep, "slow_axpb x again", 0, Sequence.launch(slowAxpb, s, x, 1f, 4f, Sequence.N, seq.cycles));
      CUgraph graph = new CUgraph();
      seq.rc(rep, "cuStreamEndCapture", 0, cuStreamEndCapture(s, graph));
      seq.check(rep, "x after the capture", Sequence.describe(start), Sequence.describe(Sequence.read(x)));
      CUgraphExec exec = new CUgraphExec();
      seq.rc(rep, "cuGraphInstantiate", 0, cuGraphInstantiate(exec, graph, 0));
      seq.rc(rep, "cuGraphLaunch 1", 0, cuGraphLaunch(exec, s));
      seq.rc(rep, "cuGraphLaunch 2", 0, cuGraphLaunch(exec, s));
      seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
      float[] expectX = start.clone();
      for (int i = 0; i < Sequence.N; i++) {
        for (int launch = 0; launch < 2; launch++) {
          expectX[i] = (2f * expectX[i] + 1f) + 4f;
        }
      }
      float[] expectY = new float[Sequence.N];
      java.util.Arrays.fill(expectY, 7f);
      seq.check(rep, "x after two graph launches", Sequence.describe(expectX), Sequence.describe(Sequence.read(x)));
      seq.check(rep, "y after two graph launches", Sequence.describe(expectY), Sequence.describe(Sequence.read(y)));
      seq.rc(rep, "cuGraphExecDestroy", 0, cuGraphExecDestroy(exec));
      seq.rc(rep, "cuGraphDestroy", 0, cuGraphDestroy(graph));
      Sequence.release(x, y, s);
    });
  }
}
