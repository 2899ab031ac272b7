package dev.kernelweave.interceptor.cublas;

import com.sun.management.ThreadMXBean;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.InterceptorSettings;
import dev.kernelweave.interceptor.Mode;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.memory.MemoryKind;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;

/**
 * The agent's own cost per small {@code cublasSgemm} (or {@code cublasSgemmStridedBatched}) on the
 * application's thread, without a GPU: what the JCublas2 advice runs ({@link BlasCalls#enter},
 * {@link BlasCalls#handle}, {@link BlasCalls#exit}) in passthrough mode with the journal off, and,
 * apart, the cublas package's share of it (signature lookups, operand extents, multiply-adds). The advice's own argument array
 * is built once, so the bytes are the agent's. Not a test: run its main and read the figures.
 *
 * <p>{@code java -cp <interceptor test class path> dev.kernelweave.interceptor.cublas.BlasHotPathBenchmark [advice|blas] [sgemm|strided]}
 */
public final class BlasHotPathBenchmark {

  private static final String SGEMM = "cublasSgemm";
  private static final String SGEMM_DESCRIPTOR =
      "(Ljcuda/jcublas/cublasHandle;IIIIILjcuda/Pointer;Ljcuda/Pointer;ILjcuda/Pointer;ILjcuda/Pointer;Ljcuda/Pointer;I)I";
  private static final String STRIDED = "cublasSgemmStridedBatched";
  private static final String STRIDED_DESCRIPTOR = "(Ljcuda/jcublas/cublasHandle;IIIIILjcuda/Pointer;Ljcuda/Pointer;IJ"
      + "Ljcuda/Pointer;IJLjcuda/Pointer;Ljcuda/Pointer;IJI)I";

  public static void main(String[] args) throws Exception {
    String what = args.length == 0 ? "advice" : args[0];
    boolean strided = args.length > 1 && args[1].equals("strided");
    String name = strided ? STRIDED : SGEMM;
    String descriptor = strided ? STRIDED_DESCRIPTOR : SGEMM_DESCRIPTOR;
    Interception.activate(new InterceptorSettings(Mode.PASSTHROUGH, 16, true, true, () -> LaunchJournal.OFF));
    // A known current context, so no call asks the (absent) driver for it.
    Class<?> callThread = Class.forName("dev.kernelweave.interceptor.CallThread");
    Method current = callThread.getDeclaredMethod("current");
    current.setAccessible(true);
    Field context = callThread.getDeclaredField("context");
    context.setAccessible(true);
    context.setLong(current.invoke(null), 0x1234L);

    CUdeviceptr[] buffers = new CUdeviceptr[64];
    for (int i = 0; i < buffers.length; i++) {
      long base = 0x7f00_0000_0000L + i * 0x10_0000L;
      Interception.allocations().add(base, 0x10_0000L, MemoryKind.DEVICE);
      buffers[i] = new CUdeviceptr();
      JCudaPointers.setNativePointer(buffers[i], base);
    }
    cublasHandle handle = new cublasHandle();
    JCudaPointers.setNativePointer(handle, 0x5555_0000L);
    // The application created its handle while the agent was attached.
    BlasCalls.exit(null, "cublasCreate", "(Ljcuda/jcublas/cublasHandle;)I", new Object[] {handle}, 0, null);

    Pointer alpha = Pointer.to(new float[] {1f});
    Pointer beta = Pointer.to(new float[] {0f});
    // handle transa transb m n k alpha A lda B ldb beta C ldc: 16 heads of 64x64x64, C = A·B; strided,
    // the same as batches of 4 (strideA, strideB and strideC after lda, ldb and ldc, batchCount last).
    Object[][] calls = new Object[16][];
    for (int h = 0; h < calls.length; h++) {
      calls[h] = strided
          ? new Object[] {handle, 0, 1, 64, 64, 64, alpha, buffers[h], 64, 4096L, buffers[16 + h], 64, 4096L, beta,
              buffers[32 + h], 64, 4096L, 4}
          : new Object[] {handle, 0, 1, 64, 64, 64, alpha, buffers[h], 64, buffers[16 + h], 64, beta,
              buffers[32 + h], 64};
    }
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sink = 0;
    for (int round = 0; round < 10; round++) {
      int n = 500_000;
      long bytesBefore = threads.getCurrentThreadAllocatedBytes();
      long start = System.nanoTime();
      if (what.equals("blas")) {
        for (int i = 0; i < n; i++) {
          sink += blasOnly(name, descriptor, calls[i & 15]);
        }
      } else {
        for (int i = 0; i < n; i++) {
          Object[] a = calls[i & 15];
          CallRecord r = (CallRecord) BlasCalls.enter(name, descriptor, a);
          cublasHandle used = BlasCalls.handle(r, (cublasHandle) a[0]);
          sink += used == handle ? 1 : 0;
          BlasCalls.exit(r, name, descriptor, a, 0, null);
        }
      }
      long ns = System.nanoTime() - start;
      long bytes = threads.getCurrentThreadAllocatedBytes() - bytesBefore;
      System.out.printf("%s %s round %d: %.1f ns per call, %.1f bytes allocated per call%n", what, name, round,
          (double) ns / n, (double) bytes / n);
    }
    System.out.println("(" + sink + ")");
    Interception.shutdown();
  }

  /** The cublas package's work for one routine: both lookups, the multiply-adds and every operand's extent. */
  private static long blasOnly(String name, String descriptor, Object[] args) {
    BlasSignature s = BlasOperandRoles.lookup(name, descriptor);
    long sum = BlasOperandExtents.multiplyAdds(s, args);
    for (int k = 0; k < s.operandCount(); k++) {
      int i = s.operandIndex(k);
      if (s.role(i).isDeviceMemory()) {
        sum += BlasOperandExtents.bytes(s, args, i);
      }
    }
    return sum + BlasOperandRoles.lookup(name, descriptor).parameterCount();
  }
}
