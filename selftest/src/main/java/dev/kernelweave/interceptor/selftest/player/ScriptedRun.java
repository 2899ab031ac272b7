package dev.kernelweave.interceptor.selftest.player;

import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.address;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.blocks;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.hex;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.isProgramCall;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.num;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyPeer;
import static jcuda.driver.JCudaDriver.cuMemcpyPeerAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.jcublas.JCublas2;
import jcuda.runtime.cudaStream_t;

/**
 * Makes a scripted program's calls for the {@link ScriptedProgramPlayer}, one line of the script
 * each, as the application would: on the stream and thread the line names.
 *
 * <p>Not thread-safe: one call at a time, as {@link ScriptedRunResources} says.
 */
final class ScriptedRun extends ScriptedRunResources {
  ScriptedRun(ScriptedProgramPlayer player, String name, boolean alone) {
    super(player, name, alone);
  }

  void execute(int i, String[] c) {
    call(i, c);
    if (isProgramCall(c[1])) {
      last = c;
    }
  }

  private void call(int i, String[] c) {
    switch (c[1]) {
      case "allocHost" -> allocHost(i, num(c[2]), num(c[3]), c[4].equals("1"));
      case "streamCreate" -> {
        CUstream s = new CUstream();
        rc(i, "cuStreamCreate", cuStreamCreate(s, c[3].equals("1") ? 1 : 0));
        streams.put(Long.parseLong(c[2]), s);
        nonBlocking.put(Long.parseLong(c[2]), c[3].equals("1"));
        if (inOtherContext()) {
          otherStreams.add(Long.parseLong(c[2]));
        }
      }
      case "alloc" -> {
        CUdeviceptr p = new CUdeviceptr();
        int bytes = num(c[3]) * 4;
        rc(i, "cuMemAlloc", cuMemAlloc(p, bytes));
        buffers.put(num(c[2]), p);
        bufferBytes.put(num(c[2]), bytes);
        if (inOtherContext()) {
          otherBuffers.add(num(c[2]));
        }
        byte[] data = hex(c[4]);
        rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(p, Pointer.to(data), data.length));
      }
      case "free" -> {
        rc(i, "cuMemFree", cuMemFree(buffers.remove(num(c[2]))));
        bufferBytes.remove(num(c[2]));
        addressSlots.removeIf(slot -> slot[0] == num(c[2]));
      }
      case "launch" -> {
        // stream function grid shared out outByte in1 in1Byte in2 in2Byte n k
        Pointer params = Pointer.to(Pointer.to(device(c[6], c[7])), Pointer.to(device(c[8], c[9])),
            Pointer.to(device(c[10], c[11])), Pointer.to(new int[] {num(c[12])}), Pointer.to(new int[] {num(c[13])}));
        rc(i, "cuLaunchKernel", cuLaunchKernel(inOtherContext() ? otherFunction(c[3]) : player.function(c[3]), num(c[4]), 1, 1, 128, 1, 1, num(c[5]),
            stream(c[2]), params, null));
      }
      case "fillPacked" -> {
        // stream out outByte n k: kw_fill_packed({k, out, n}), the pointer at offset 4 of a packed structure
        int n = num(c[5]);
        ByteBuffer packed = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        packed.putInt(num(c[6])).putLong(address(device(c[3], c[4]))).putInt(n);
        rc(i, "cuLaunchKernel", cuLaunchKernel(player.function("kw_fill_packed"), blocks(n), 1, 1, 128, 1, 1, 0,
            stream(c[2]), Pointer.to(Pointer.to(packed.array())), null));
      }
      case "fillDifference" -> {
        // stream other otherByte out outByte n k: kw_fill_difference(other, out, n, k), which writes
        // out through other and the difference of the two pointers
        Pointer params = Pointer.to(Pointer.to(device(c[3], c[4])), Pointer.to(device(c[5], c[6])),
            Pointer.to(new int[] {num(c[7])}), Pointer.to(new int[] {num(c[8])}));
        rc(i, "cuLaunchKernel", cuLaunchKernel(player.function("kw_fill_difference"), blocks(num(c[7])), 1, 1, 128, 1, 1, 0,
            stream(c[2]), params, null));
      }
      case "sgemmUpdate" -> {
        // stream out outByte in inByte n alpha: out = alpha * in * in[0] + out, by cuBLAS on the stream
        int n = num(c[7]);
        CUdeviceptr in = device(c[5], c[6]);
        rc(i, "cublasSetStream", JCublas2.cublasSetStream(blas(), new cudaStream_t(stream(c[2]))));
        rc(i, "cublasSgemm", JCublas2.cublasSgemm(blas(), 0, 0, n, 1, 1,
            Pointer.to(new float[] {Float.parseFloat(c[8])}), in, n, in, 1, Pointer.to(new float[] {1f}),
            device(c[3], c[4]), n));
      }
      case "launchIntoHost" -> {
        // stream host hostByte in inByte n k: kw_scale writing host memory through its mapped address
        Pointer params = Pointer.to(Pointer.to(hostDevice(num(c[3]), num(c[4]))), Pointer.to(device(c[5], c[6])),
            Pointer.to(device("-1", "0")), Pointer.to(new int[] {num(c[7])}), Pointer.to(new int[] {num(c[8])}));
        rc(i, "cuLaunchKernel", cuLaunchKernel(player.function("kw_scale"), blocks(num(c[7])), 1, 1, 128, 1, 1, 0,
            stream(c[2]), params, null));
      }
      case "launchReadingConstant" -> {
        // stream out outByte n k
        Pointer params = Pointer.to(Pointer.to(device(c[3], c[4])), Pointer.to(new int[] {num(c[5])}),
            Pointer.to(new int[] {num(c[6])}));
        rc(i, "cuLaunchKernel", cuLaunchKernel(player.function("kw_fill_constant"), blocks(num(c[5])), 1, 1, 128, 1, 1, 0,
            stream(c[2]), params, null));
      }
      case "launchWithoutPtx" -> {
        // stream slot slotByte target targetByte n k: the target's address stored in the slot, then
        // a kernel that writes through it
        CUdeviceptr slot = device(c[3], c[4]);
        addressSlots.add(new int[] {num(c[3]), num(c[4])});
        rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(slot, Pointer.to(device(c[5], c[6])), 8));
        Pointer params = Pointer.to(Pointer.to(slot), Pointer.to(new int[] {num(c[7])}),
            Pointer.to(new int[] {num(c[8])}));
        rc(i, "cuLaunchKernel", cuLaunchKernel(player.function("kw_fill_indirect"), blocks(num(c[7])), 1, 1, 128, 1, 1, 0,
            stream(c[2]), params, null));
      }
      case "memset" -> {
        // stream sync buf byte bytes value
        CUdeviceptr dst = device(c[4], c[5]);
        byte value = (byte) num(c[7]);
        if (c[3].equals("1")) {
          rc(i, "cuMemsetD8", cuMemsetD8(dst, value, num(c[6])));
        } else {
          rc(i, "cuMemsetD8Async", cuMemsetD8Async(dst, value, num(c[6]), stream(c[2])));
        }
      }
      case "write" -> {
        byte[] data = hex(c[4]);
        rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(device(c[2], c[3]), Pointer.to(data), data.length));
      }
      case "read" -> {
        byte[] data = new byte[num(c[4])];
        rc(i, "cuMemcpyDtoH", cuMemcpyDtoH(Pointer.to(data), device(c[2], c[3]), data.length));
        observe(i, "read b" + c[2] + "+" + c[3], masked(num(c[2]), num(c[3]), data));
      }
      case "readAsync" -> rc(i, "cuMemcpyDtoHAsync",
          cuMemcpyDtoHAsync(host(num(c[3]), num(c[4])), device(c[5], c[6]), num(c[7]), stream(c[2])));
      case "writeAsync" -> rc(i, "cuMemcpyHtoDAsync",
          cuMemcpyHtoDAsync(device(c[3], c[4]), host(num(c[5]), num(c[6])), num(c[7]), stream(c[2])));
      case "copy" -> rc(i, "cuMemcpyDtoDAsync",
          cuMemcpyDtoDAsync(device(c[3], c[4]), device(c[5], c[6]), num(c[7]), stream(c[2])));
      case "ctxSync" -> rc(i, "cuCtxSynchronize", cuCtxSynchronize());
      case "streamSync" -> rc(i, "cuStreamSynchronize", cuStreamSynchronize(stream(c[2])));
      case "eventRecord" -> {
        rc(i, "cuEventRecord", cuEventRecord(event(num(c[2])), stream(c[3])));
        if (inOtherContext()) {
          otherEvents.add(num(c[2])); // queried nowhere: it goes with its context
        } else {
          recordedOn.put(num(c[2]), Long.parseLong(c[3]));
        }
      }
      case "queries" -> queries(i);
      case "eventSync" -> {
        CUevent e = events.get(num(c[2]));
        if (e != null) {
          rc(i, "cuEventSynchronize", cuEventSynchronize(e));
        }
      }
      case "streamWaitEvent" -> {
        CUevent e = events.get(num(c[3]));
        if (e != null) {
          rc(i, "cuStreamWaitEvent", cuStreamWaitEvent(stream(c[2]), e, 0));
        }
      }
      case "hostWrite" -> {
        byte[] data = hex(c[4]);
        view(num(c[2]), num(c[3])).put(data);
      }
      case "writeConstant" -> {
        byte[] data = hex(c[2]);
        rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(constant(i), Pointer.to(data), data.length));
      }
      case "hostFunction", "streamCallback" -> hostFunction(i, c);
      case "openGate" -> gate(num(c[2])).countDown();
      case "observeHost" -> {
        ByteBuffer v = view(num(c[2]), 0);
        byte[] data = new byte[v.remaining()];
        v.get(data);
        observe(i, "host h" + c[2], data);
      }
      case "priority" -> Thread.currentThread().setPriority(num(c[2]));
      // A capture's calls stay as written, ordered as CUDA orders them and no further: the program
      // synchronizes around it, so that one racing there stays comparable with its serial run.
      case "captureSync" -> rc(i, "cuCtxSynchronize", cuCtxSynchronize());
      case "captureBegin" -> {
        if (!player.serial) { // serially, the calls run on the legacy stream, which cannot capture: as the graph would
          rc(i, "cuStreamBeginCapture", cuStreamBeginCapture(stream(c[2]), 0)); // global mode
        }
      }
      case "captureEnd" -> {
        if (!player.serial) {
          CUgraph graph = new CUgraph();
          CUgraphExec exec = new CUgraphExec();
          rc(i, "cuStreamEndCapture", cuStreamEndCapture(stream(c[2]), graph));
          rc(i, "cuGraphInstantiate", cuGraphInstantiate(exec, graph, 0));
          rc(i, "cuGraphLaunch", cuGraphLaunch(exec, stream(c[2])));
          graphs.add(graph);
          graphExecs.add(exec);
        }
        rc(i, "cuCtxSynchronize", cuCtxSynchronize()); // see captureSync
      }
      case "contextCreate" -> createOtherContext(i);
      case "contextDestroy" -> destroyOtherContext(i);
      // dst dstByte src srcByte bytes, each buffer in its own context
      case "peer" -> rc(i, "cuMemcpyPeer", cuMemcpyPeer(device(c[2], c[3]), contextOf(c[2]), device(c[4], c[5]),
          contextOf(c[4]), num(c[6])));
      case "peerAsync" -> rc(i, "cuMemcpyPeerAsync", cuMemcpyPeerAsync(device(c[3], c[4]), contextOf(c[3]),
          device(c[5], c[6]), contextOf(c[5]), num(c[7]), stream(c[2])));
      case "print" -> rc(i, "cuLaunchKernel kw_print", cuLaunchKernel(player.function("kw_print"), 1, 1, 1, 32, 1, 1, 0,
          stream(c[2]), Pointer.to(Pointer.to(new int[] {num(c[3])}), Pointer.to(new int[] {num(c[4])})), null));
      case "pause" -> LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(num(c[2])));
      default -> throw new IllegalArgumentException("unknown call: " + String.join(" ", c));
    }
  }
}
