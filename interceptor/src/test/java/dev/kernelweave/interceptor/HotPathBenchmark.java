package dev.kernelweave.interceptor;

import dev.kernelweave.scheduler.Placement;
import com.sun.management.ThreadMXBean;
import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.journal.LaunchJournals;
import dev.kernelweave.memory.MemoryKind;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * The agent's own cost per launch on the application's thread, without a GPU: the advice's steps
 * (begin, parameters to accesses, end, journal hand-off) for a five-parameter launch with 64 live
 * allocations. Not a test: run its main and read the figures.
 *
 * <p>{@code java -cp <interceptor test class path> dev.kernelweave.interceptor.HotPathBenchmark [journal|off]}
 */
public final class HotPathBenchmark {

  public static void main(String[] args) throws Exception {
    boolean journal = args.length == 0 || !args[0].equals("off");
    Path dir = Files.createTempDirectory("kw-hotpath");
    LaunchJournal j = journal ? LaunchJournals.open(dir.resolve("journal"), System.err::println) : LaunchJournal.OFF;
    Interception.activate(new InterceptorSettings(Mode.PASSTHROUGH, 16, true, true, () -> j));
    CallThread.current().context = 0x1234;
    CUdeviceptr[] buffers = new CUdeviceptr[64];
    for (int i = 0; i < buffers.length; i++) {
      long base = 0x7f00_0000_0000L + i * 0x10_0000L;
      AgentState.current().allocations.add(base, 0x10_0000L, MemoryKind.DEVICE);
      buffers[i] = new CUdeviceptr();
      JCudaPointers.setNativePointer(buffers[i], base);
    }
    byte r = (byte) AccessMode.READ.ordinal();
    byte rw = (byte) AccessMode.READ_WRITE.ordinal();
    KernelInfo axpb = new KernelInfo("axpb", new byte[] {rw, r, KernelInfo.VALUE, KernelInfo.VALUE, KernelInfo.VALUE}, false);
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    int launch = dev.kernelweave.calltable.CudaCallTable.canonical().idOf("cuLaunchKernel"); // woven in as a constant
    for (int round = 0; round < 8; round++) {
      int calls = 200_000;
      long bytesBefore = threads.getCurrentThreadAllocatedBytes();
      long start = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        Pointer params = Pointer.to(Pointer.to(buffers[i & 63]), Pointer.to(buffers[(i + 7) & 63]),
            Pointer.to(new float[] {1.5f}), Pointer.to(new float[] {0.25f}), Pointer.to(new int[] {4096}));
        CallRecord c = Calls.begin(launch, "cuLaunchKernel", 0L);
        c.gridX = 16;
        c.blockX = 256;
        CallAccesses.launch(c, axpb, params, null);
        Calls.place(c, Placement.ASYNC);
        Calls.end(c, 0, null);
      }
      long ns = System.nanoTime() - start;
      long bytes = threads.getCurrentThreadAllocatedBytes() - bytesBefore;
      System.out.printf("round %d: %.0f ns per launch, %.0f bytes allocated per launch (the program's own Pointer.to"
          + " objects included)%n", round, (double) ns / calls, (double) bytes / calls);
    }
    Interception.shutdown();
  }
}
