package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxGetDevice;
import static jcuda.driver.JCudaDriver.cuCtxGetStreamPriorityRange;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD16;
import static jcuda.driver.JCudaDriver.cuMemsetD16Async;
import static jcuda.driver.JCudaDriver.cuMemsetD32;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuModuleGetGlobal;
import static jcuda.driver.JCudaDriver.cuStreamCreateWithPriority;
import static jcuda.driver.JCudaDriver.cuStreamGetCtx;
import static jcuda.driver.JCudaDriver.cuStreamGetFlags;
import static jcuda.driver.JCudaDriver.cuStreamGetPriority;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * Contract points of the agent (DESIGN.md, "The contract with the application") that the other
 * programs do not probe, each variant a correct CUDA sequence whose every observation CUDA defines.
 * After a run of 17 launches (so that {@code engage=auto} schedules the rest); kernels of
 * contract.cu, which the stand-in interprets:
 *
 * <ul>
 *   <li>{@code device-global}: a {@code __device__} array (not {@code __constant__}) uploaded with
 *       {@code cuMemcpyHtoDAsync} to its {@code cuModuleGetGlobal} address, scaled and read by
 *       kernels that take no pointer to it, on two streams joined by an event, with a write of it
 *       after a read on one stream; then written by a legacy-stream kernel and read back by a
 *       synchronous {@code cuMemcpyDtoH} of its address; then read on one stream and overwritten
 *       on another that waits for the read's event.
 *   <li>{@code pointer-chase}: a table of device pointers uploaded by the host; a kernel scales both
 *       buffers through it on a blocking stream; a non-blocking stream waits for its event, reads
 *       through the table, then writes a buffer directly; the table is then rewritten on the device
 *       by a device-to-device copy and used again; read back.
 *   <li>{@code memset-widths}: 8-, 16- and 32-bit memsets, asynchronous on two non-blocking streams
 *       joined by an event and synchronous on the legacy stream, at odd offsets and partial words
 *       of one buffer, between integer kernels on those streams and a blocking one.
 *   <li>{@code dtod-one-allocation}: device-to-device copies between adjacent ranges of one
 *       allocation (asynchronous on two streams joined by an event, then synchronous on the legacy
 *       stream), ordered against kernels that write the source after the copy and the copy's
 *       destination.
 *   <li>{@code legacy-event-wait}: an event recorded on the legacy stream after a kernel; a
 *       non-blocking stream waits for it, scales and reads back into page-locked memory, and the
 *       host waits for an event recorded after that; then twelve launches on a blocking stream, a
 *       read back and {@code cuEventSynchronize} of an event after it, then the queries.
 *   <li>{@code priorities}: streams of the greatest and least priority (one non-blocking), their
 *       {@code cuStreamGetPriority}, {@code cuStreamGetFlags} and {@code cuStreamGetCtx}, before and
 *       after dependent work between them through events; {@code cuCtxGetCurrent} and
 *       {@code cuCtxGetDevice} after it.
 *   <li>{@code dynamic-shared}: one kernel with dynamic shared memory launched with blocks of 256,
 *       128, 64 and 32 threads (shared bytes to match) back to back on two streams, the later ones
 *       reading what the earlier wrote on the same stream.
 * </ul>
 */
public final class ContractProbesProgram {

  /** The floats of {@code contract_acc}, contract.cu's {@code __device__} array. */
  private static final long ACC_BYTES = 4L * N;

  record Contract(CUmodule module, CUfunction globalFill, CUfunction globalAxpb, CUfunction globalRead,
      CUfunction chaseAxpb, CUfunction chaseRead, CUfunction mixU32, CUfunction blockReverse) {
    static Contract load() throws Exception {
      CUmodule m = Sequence.load("/ptx/contract.ptx");
      return new Contract(m, Sequence.function(m, "global_fill"), Sequence.function(m, "global_axpb"),
          Sequence.function(m, "global_read"), Sequence.function(m, "chase_axpb"),
          Sequence.function(m, "chase_read"), Sequence.function(m, "mix_u32"),
          Sequence.function(m, "block_reverse"));
    }
  }

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "device-global");
    Sequence.Kernels kernels = Sequence.Kernels.load();
    Contract c = Contract.load();
    Sequence.engagingRun(kernels.slowFill());
    seq.repeat(31f, kernels, Map.of(
        "device-global", (q, k, rep, v) -> deviceGlobal(q, k, c, rep, v),
        "pointer-chase", (q, k, rep, v) -> pointerChase(q, k, c, rep, v),
        "memset-widths", (q, k, rep, v) -> memsetWidths(q, k, c, rep, v),
        "dtod-one-allocation", (q, k, rep, v) -> dtodOneAllocation(q, k, c, rep, v),
        "legacy-event-wait", (q, k, rep, v) -> legacyEventWait(q, k, c, rep, v),
        "priorities", (q, k, rep, v) -> priorities(q, k, c, rep, v),
        "dynamic-shared", (q, k, rep, v) -> dynamicShared(q, k, c, rep, v)));
  }

  // ---- device-global

  private static void deviceGlobal(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    CUdeviceptr acc = new CUdeviceptr();
    long[] size = {0};
    seq.rc(rep, "cuModuleGetGlobal", 0, cuModuleGetGlobal(acc, size, c.module(), "contract_acc"));
    seq.check(rep, "contract_acc bytes", ACC_BYTES, size[0]);
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUstream s3 = stream(0);
    CUevent e1 = event(0);
    CUevent e2 = event(0);
    CUdeviceptr out = alloc(BYTES);
    CUdeviceptr out2 = alloc(BYTES);
    Pointer source = allocHost(BYTES);
    Pointer readOut = allocHost(BYTES);
    Pointer readAcc = allocHost(BYTES);
    float[] r = Sequence.ramp(v);
    source.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().put(r);
    // Upload on s1, scale there (no pointer to the global), then on s2: read, scale, read back.
    seq.rc(rep, "cuMemcpyHtoDAsync to the global on s1", 0, cuMemcpyHtoDAsync(acc, source, BYTES, s1));
    seq.rc(rep, "global_axpb on s1", 0, Sequence.launch(c.globalAxpb(), s1, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord e1 on s1", 0, cuEventRecord(e1, s1));
    seq.rc(rep, "cuStreamWaitEvent s2 e1", 0, cuStreamWaitEvent(s2, e1, 0));
    seq.rc(rep, "global_read on s2", 0, Sequence.launch(c.globalRead(), s2, out, 1f, -1f, N, seq.cycles));
    seq.rc(rep, "global_axpb on s2", 0, Sequence.launch(c.globalAxpb(), s2, 3f, 0f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync out on s2", 0, cuMemcpyDtoHAsync(readOut, out, BYTES, s2));
    seq.rc(rep, "cuMemcpyDtoHAsync global on s2", 0, cuMemcpyDtoHAsync(readAcc, acc, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    float[] scaled = Sequence.axpb(r, 2f, 1f);
    seq.check(rep, "out read from the global", Sequence.describe(Sequence.axpb(scaled, 1f, -1f)),
        Sequence.describe(Sequence.floats(readOut)));
    seq.check(rep, "global after s2", Sequence.describe(Sequence.axpb(scaled, 3f, 0f)),
        Sequence.describe(Sequence.floats(readAcc)));
    // A legacy-stream kernel writes the global; a synchronous copy of its address reads it.
    seq.rc(rep, "global_fill on the legacy stream", 0, Sequence.launch(c.globalFill(), null, v + 5f, N, seq.cycles));
    float[] host = new float[N];
    seq.rc(rep, "cuMemcpyDtoH of the global", 0, cuMemcpyDtoH(Pointer.to(host), acc, BYTES));
    seq.check(rep, "global after global_fill", Sequence.describe(Sequence.ramp(v + 5f)), Sequence.describe(host));
    // A blocking stream reads it after legacy work; the legacy stream's read waits for that.
    seq.rc(rep, "global_axpb on the legacy stream", 0, Sequence.launch(c.globalAxpb(), null, 1f, 2f, N, seq.cycles));
    seq.rc(rep, "global_read on blocking s3", 0, Sequence.launch(c.globalRead(), s3, out, 2f, 0f, N, seq.cycles));
    float[] expectedOut = Sequence.axpb(Sequence.axpb(Sequence.ramp(v + 5f), 1f, 2f), 2f, 0f);
    seq.check(rep, "out after s3", Sequence.describe(expectedOut), Sequence.describe(Sequence.read(out)));
    // Read on s1, overwritten on s2 after the read's event: the read sees the old values.
    seq.rc(rep, "global_read on s1", 0, Sequence.launch(c.globalRead(), s1, out2, 1f, 0f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord e2 on s1", 0, cuEventRecord(e2, s1));
    seq.rc(rep, "cuStreamWaitEvent s2 e2", 0, cuStreamWaitEvent(s2, e2, 0));
    seq.rc(rep, "global_fill on s2", 0, Sequence.launch(c.globalFill(), s2, v + 9f, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize s2 again", 0, cuStreamSynchronize(s2));
    seq.check(rep, "out2 read before the overwrite", Sequence.describe(Sequence.axpb(Sequence.ramp(v + 5f), 1f, 2f)),
        Sequence.describe(Sequence.read(out2)));
    float[] last = new float[N];
    cuMemcpyDtoH(Pointer.to(last), acc, BYTES);
    seq.check(rep, "global after the overwrite", Sequence.describe(Sequence.ramp(v + 9f)), Sequence.describe(last));
    Sequence.release(readAcc, readOut, source, out, out2, e1, e2, s1, s2, s3);
  }

  // ---- pointer-chase

  private static void pointerChase(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    CUstream s1 = stream(0);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr p = alloc(BYTES);
    CUdeviceptr q = alloc(BYTES);
    CUdeviceptr out = alloc(BYTES);
    CUdeviceptr table = alloc(16);
    CUdeviceptr swapped = alloc(16);
    Pointer pinned = allocHost(BYTES);
    seq.rc(rep, "cuMemcpyHtoD table", 0, cuMemcpyHtoD(table, Pointer.to(new CUdeviceptr[] {p, q}), 16));
    seq.rc(rep, "cuMemcpyHtoD swapped", 0, cuMemcpyHtoD(swapped, Pointer.to(new CUdeviceptr[] {q, p}), 16));
    seq.rc(rep, "slow_fill p on s1", 0, Sequence.launch(k.slowFill(), s1, p, v, N, seq.cycles));
    seq.rc(rep, "slow_fill q on s1", 0, Sequence.launch(k.slowFill(), s1, q, v + 1f, N, seq.cycles));
    seq.rc(rep, "chase_axpb both on s1", 0, Sequence.launch(c.chaseAxpb(), s1, table, 2, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord on s1", 0, cuEventRecord(e, s1));
    seq.rc(rep, "cuStreamWaitEvent s2", 0, cuStreamWaitEvent(s2, e, 0));
    seq.rc(rep, "chase_read on s2", 0, Sequence.launch(c.chaseRead(), s2, out, table, N, seq.cycles));
    seq.rc(rep, "slow_fill p on s2", 0, Sequence.launch(k.slowFill(), s2, p, v + 3f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync p on s2", 0, cuMemcpyDtoHAsync(pinned, p, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    seq.check(rep, "p", Sequence.describe(Sequence.ramp(v + 3f)), Sequence.describe(Sequence.floats(pinned)));
    seq.check(rep, "out read through the table", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 2f, 1f)),
        Sequence.describe(Sequence.read(out)));
    float[] expectQ = Sequence.axpb(Sequence.ramp(v + 1f), 2f, 1f);
    seq.check(rep, "q", Sequence.describe(expectQ), Sequence.describe(Sequence.read(q)));
    // The table rewritten on the device: its first entry is now q.
    seq.rc(rep, "cuMemcpyDtoDAsync swapped to table on s1", 0, cuMemcpyDtoDAsync(table, swapped, 16, s1));
    seq.rc(rep, "chase_axpb first on s1", 0, Sequence.launch(c.chaseAxpb(), s1, table, 1, 1f, 5f, N, seq.cycles));
    seq.rc(rep, "chase_read on s1", 0, Sequence.launch(c.chaseRead(), s1, out, table, N, seq.cycles));
    seq.check(rep, "q through the new table", Sequence.describe(Sequence.axpb(expectQ, 1f, 5f)),
        Sequence.describe(Sequence.read(q)));
    seq.check(rep, "out through the new table", Sequence.describe(Sequence.axpb(expectQ, 1f, 5f)),
        Sequence.describe(Sequence.read(out)));
    seq.check(rep, "p untouched", Sequence.describe(Sequence.ramp(v + 3f)), Sequence.describe(Sequence.read(p)));
    Sequence.release(pinned, p, q, out, table, swapped, e, s1, s2);
  }

  // ---- memset-widths

  private static void memsetWidths(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUstream s3 = stream(0);
    CUevent e1 = event(0);
    CUdeviceptr y = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    int[] expected = new int[N];
    for (int i = 0; i < N; i++) {
      expected[i] = 0x01000193 * (i + rep) + 7;
    }
    seq.rc(rep, "cuMemcpyHtoD", 0, cuMemcpyHtoD(y, Pointer.to(expected), BYTES));
    seq.rc(rep, "cuCtxSynchronize", 0, cuCtxSynchronize());
    int k1 = 7 + rep;
    seq.rc(rep, "mix_u32 on s1", 0, Sequence.launch(c.mixU32(), s1, y, k1, N, seq.cycles));
    mix(expected, k1);
    seq.rc(rep, "cuMemsetD8Async bytes 1..3 on s1", 0, cuMemsetD8Async(y.withByteOffset(1), (byte) 0xA5, 3, s1));
    setBytes(expected, 1, 3, 0xA5);
    seq.rc(rep, "cuMemsetD16Async bytes 6..15 on s1", 0,
        cuMemsetD16Async(y.withByteOffset(6), (short) 0x1234, 5, s1));
    setShorts(expected, 6, 5, 0x1234);
    seq.rc(rep, "cuEventRecord e1 on s1", 0, cuEventRecord(e1, s1));
    seq.rc(rep, "cuStreamWaitEvent s2 e1", 0, cuStreamWaitEvent(s2, e1, 0));
    seq.rc(rep, "cuMemsetD32Async ints 16..23 on s2", 0, cuMemsetD32Async(y.withByteOffset(64), 0xDEADBEEF, 8, s2));
    Arrays.fill(expected, 16, 24, 0xDEADBEEF);
    int k2 = 11 + rep;
    seq.rc(rep, "mix_u32 on s2", 0, Sequence.launch(c.mixU32(), s2, y, k2, N, seq.cycles));
    mix(expected, k2);
    seq.rc(rep, "cuMemsetD8Async last 5 bytes on s2", 0,
        cuMemsetD8Async(y.withByteOffset(BYTES - 5), (byte) 0x3C, 5, s2));
    setBytes(expected, (int) BYTES - 5, 5, 0x3C);
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, y, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    seq.check(rep, "after the asynchronous memsets", describe(expected), describe(ints(pinned)));
    // The synchronous forms on the legacy stream, then a blocking stream's kernel, then a read.
    seq.rc(rep, "cuMemsetD8 bytes 403..411", 0, cuMemsetD8(y.withByteOffset(403), (byte) 0x7F, 9));
    setBytes(expected, 403, 9, 0x7F);
    seq.rc(rep, "cuMemsetD16 bytes 802..807", 0, cuMemsetD16(y.withByteOffset(802), (short) 0xBEEF, 3));
    setShorts(expected, 802, 3, 0xBEEF);
    seq.rc(rep, "cuMemsetD32 ints 300..303", 0, cuMemsetD32(y.withByteOffset(1200), 0x01020304, 4));
    Arrays.fill(expected, 300, 304, 0x01020304);
    int k3 = 13 + rep;
    seq.rc(rep, "mix_u32 on blocking s3", 0, Sequence.launch(c.mixU32(), s3, y, k3, N, seq.cycles));
    mix(expected, k3);
    int[] host = new int[N];
    seq.rc(rep, "cuMemcpyDtoH", 0, cuMemcpyDtoH(Pointer.to(host), y, BYTES));
    seq.check(rep, "after the synchronous memsets", describe(expected), describe(host));
    Sequence.release(pinned, y, e1, s1, s2, s3);
  }

  private static void mix(int[] y, int k) {
    for (int i = 0; i < y.length; i++) {
      y[i] = y[i] * 3 + k + i;
    }
  }

  /** Little-endian bytes of the ints, as the device stores them. */
  private static void setBytes(int[] y, int offset, int count, int value) {
    for (int b = offset; b < offset + count; b++) {
      int shift = 8 * (b % 4);
      y[b / 4] = (y[b / 4] & ~(0xFF << shift)) | ((value & 0xFF) << shift);
    }
  }

  private static void setShorts(int[] y, int offset, int count, int value) {
    for (int j = 0; j < count; j++) {
      setBytes(y, offset + 2 * j, 1, value);
      setBytes(y, offset + 2 * j + 1, 1, value >>> 8);
    }
  }

  private static int[] ints(Pointer host) {
    int[] values = new int[N];
    host.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asIntBuffer().get(values);
    return values;
  }

  private static String describe(int[] values) {
    return Integer.toHexString(values[0]) + ".." + Integer.toHexString(values[values.length - 1]) + " "
        + Integer.toHexString(Arrays.hashCode(values));
  }

  // ---- dtod-one-allocation

  private static void dtodOneAllocation(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUstream s3 = stream(0);
    CUevent e1 = event(0);
    CUdeviceptr whole = alloc(3 * BYTES);
    CUdeviceptr a = whole;
    CUdeviceptr b = whole.withByteOffset(BYTES);
    CUdeviceptr c3 = whole.withByteOffset(2 * BYTES);
    Pointer pinned = allocHost(3 * BYTES);
    seq.rc(rep, "slow_fill a on s1", 0, Sequence.launch(k.slowFill(), s1, a, v, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoDAsync a to b on s1", 0, cuMemcpyDtoDAsync(b, a, BYTES, s1));
    seq.rc(rep, "slow_axpb a on s1", 0, Sequence.launch(k.slowAxpb(), s1, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord e1 on s1", 0, cuEventRecord(e1, s1));
    seq.rc(rep, "cuStreamWaitEvent s2 e1", 0, cuStreamWaitEvent(s2, e1, 0));
    seq.rc(rep, "cuMemcpyDtoDAsync b to c on s2", 0, cuMemcpyDtoDAsync(c3, b, BYTES, s2));
    seq.rc(rep, "slow_axpb b on s2", 0, Sequence.launch(k.slowAxpb(), s2, b, 3f, 0f, N, seq.cycles));
    // The upper half of a into the lower half of b: the ranges touch at a's end.
    seq.rc(rep, "cuMemcpyDtoDAsync upper a to lower b on s2", 0,
        cuMemcpyDtoDAsync(b, a.withByteOffset(BYTES / 2), BYTES / 2, s2));
    seq.rc(rep, "cuMemcpyDtoHAsync all on s2", 0, cuMemcpyDtoHAsync(pinned, whole, 3 * BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    float[] ea = Sequence.axpb(Sequence.ramp(v), 2f, 1f);
    float[] eb = Sequence.axpb(Sequence.ramp(v), 3f, 0f);
    System.arraycopy(ea, N / 2, eb, 0, N / 2);
    float[] ec = Sequence.ramp(v);
    float[] all = new float[3 * N];
    pinned.getByteBuffer(0, 3 * BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().get(all);
    checkThirds(seq, rep, "asynchronous", all, ea, eb, ec);
    // Synchronous copy of a over c on the legacy stream, a blocking stream's kernel on c, a read.
    seq.rc(rep, "cuMemcpyDtoD a to c", 0, cuMemcpyDtoD(c3, a, BYTES));
    seq.rc(rep, "slow_axpb c on blocking s3", 0, Sequence.launch(k.slowAxpb(), s3, c3, 1f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoD lower c to upper b", 0, cuMemcpyDtoD(b.withByteOffset(BYTES / 2), c3, BYTES / 2));
    float[] host = new float[3 * N];
    seq.rc(rep, "cuMemcpyDtoH all", 0, cuMemcpyDtoH(Pointer.to(host), whole, 3 * BYTES));
    float[] ec2 = Sequence.axpb(ea, 1f, 1f);
    float[] eb2 = eb.clone();
    System.arraycopy(ec2, 0, eb2, N / 2, N / 2);
    checkThirds(seq, rep, "synchronous", host, ea, eb2, ec2);
    Sequence.release(pinned, whole, e1, s1, s2, s3);
  }

  private static void checkThirds(Sequence seq, int rep, String what, float[] all, float[] ea, float[] eb,
      float[] ec) {
    seq.check(rep, what + " a", Sequence.describe(ea), Sequence.describe(Arrays.copyOfRange(all, 0, N)));
    seq.check(rep, what + " b", Sequence.describe(eb), Sequence.describe(Arrays.copyOfRange(all, N, 2 * N)));
    seq.check(rep, what + " c", Sequence.describe(ec), Sequence.describe(Arrays.copyOfRange(all, 2 * N, 3 * N)));
  }

  // ---- legacy-event-wait

  private static void legacyEventWait(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    CUstream nb = stream(NON_BLOCKING);
    CUstream blocking = stream(0);
    CUevent e = event(0);
    CUevent done = event(0);
    CUevent after = event(0);
    CUdeviceptr x = alloc(BYTES);
    CUdeviceptr z = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    Pointer pinned2 = allocHost(BYTES);
    Sequence.fill(pinned, -1f);
    Sequence.fill(pinned2, -1f);
    seq.rc(rep, "slow_fill x on the legacy stream", 0, Sequence.launch(k.slowFill(), null, x, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord on the legacy stream", 0, cuEventRecord(e, null));
    seq.rc(rep, "cuStreamWaitEvent non-blocking", 0, cuStreamWaitEvent(nb, e, 0));
    seq.rc(rep, "slow_axpb x on the non-blocking stream", 0, Sequence.launch(k.slowAxpb(), nb, x, 2f, 3f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync x", 0, cuMemcpyDtoHAsync(pinned, x, BYTES, nb));
    seq.rc(rep, "cuEventRecord done", 0, cuEventRecord(done, nb));
    seq.rc(rep, "cuEventSynchronize done", 0, cuEventSynchronize(done));
    seq.check(rep, "x", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 2f, 3f)),
        Sequence.describe(Sequence.floats(pinned)));
    seq.rc(rep, "slow_fill z on blocking", 0, Sequence.launch(k.slowFill(), blocking, z, v + 2f, N, seq.cycles / 12));
    float[] expected = Sequence.ramp(v + 2f);
    for (int j = 0; j < 11; j++) {
      seq.rc(rep, "slow_axpb z " + j, 0, Sequence.launch(k.slowAxpb(), blocking, z, 1f, 1f, N, seq.cycles / 12));
      expected = Sequence.axpb(expected, 1f, 1f);
    }
    seq.rc(rep, "cuMemcpyDtoHAsync z", 0, cuMemcpyDtoHAsync(pinned2, z, BYTES, blocking));
    seq.rc(rep, "cuEventRecord after", 0, cuEventRecord(after, blocking));
    seq.rc(rep, "cuEventSynchronize after", 0, cuEventSynchronize(after));
    seq.check(rep, "z", Sequence.describe(expected), Sequence.describe(Sequence.floats(pinned2)));
    seq.rc(rep, "cuEventQuery after", 0, cuEventQuery(after));
    seq.rc(rep, "cuEventQuery done", 0, cuEventQuery(done));
    seq.rc(rep, "cuStreamQuery blocking", 0, cuStreamQuery(blocking));
    seq.rc(rep, "cuStreamQuery non-blocking", 0, cuStreamQuery(nb));
    Sequence.release(pinned, pinned2, x, z, e, done, after, nb, blocking);
  }

  // ---- priorities

  private static void priorities(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    int[] least = {0};
    int[] greatest = {0};
    seq.rc(rep, "cuCtxGetStreamPriorityRange", 0, cuCtxGetStreamPriorityRange(least, greatest));
    System.out.println("result rep " + rep + " priority range " + least[0] + " " + greatest[0]);
    CUstream high = new CUstream();
    CUstream low = new CUstream();
    seq.rc(rep, "cuStreamCreateWithPriority high", 0, cuStreamCreateWithPriority(high, NON_BLOCKING, greatest[0]));
    seq.rc(rep, "cuStreamCreateWithPriority low", 0, cuStreamCreateWithPriority(low, 0, least[0]));
    CUstream plain = stream(0);
    CUcontext current = new CUcontext();
    cuCtxGetCurrent(current);
    describeStreams(seq, rep, "before", current, Map.of("high", high, "low", low, "plain", plain));
    CUevent e1 = event(0);
    CUevent e2 = event(0);
    CUevent e3 = event(0);
    CUdeviceptr x = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    seq.rc(rep, "slow_fill on low", 0, Sequence.launch(k.slowFill(), low, x, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord e1 on low", 0, cuEventRecord(e1, low));
    seq.rc(rep, "cuStreamWaitEvent high e1", 0, cuStreamWaitEvent(high, e1, 0));
    seq.rc(rep, "slow_axpb on high", 0, Sequence.launch(k.slowAxpb(), high, x, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord e2 on high", 0, cuEventRecord(e2, high));
    seq.rc(rep, "cuStreamWaitEvent low e2", 0, cuStreamWaitEvent(low, e2, 0));
    seq.rc(rep, "slow_axpb on low", 0, Sequence.launch(k.slowAxpb(), low, x, 1f, -4f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord e3 on low", 0, cuEventRecord(e3, low));
    seq.rc(rep, "cuStreamWaitEvent plain e3", 0, cuStreamWaitEvent(plain, e3, 0));
    seq.rc(rep, "slow_axpb on plain", 0, Sequence.launch(k.slowAxpb(), plain, x, 1f, 4f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync on plain", 0, cuMemcpyDtoHAsync(pinned, x, BYTES, plain));
    seq.rc(rep, "cuStreamSynchronize plain", 0, cuStreamSynchronize(plain));
    seq.rc(rep, "cuStreamSynchronize low", 0, cuStreamSynchronize(low));
    float[] read = Sequence.read(x);
    seq.check(rep, "x", Sequence.describe(Sequence.axpb(Sequence.axpb(Sequence.axpb(Sequence.ramp(v), 2f, 1f),
        1f, -4f), 1f, 4f)), Sequence.describe(read));
    describeStreams(seq, rep, "after", current, Map.of("high", high, "low", low, "plain", plain));
    CUcontext again = new CUcontext();
    seq.rc(rep, "cuCtxGetCurrent", 0, cuCtxGetCurrent(again));
    seq.check(rep, "current context unchanged", true, current.toString().equals(again.toString()));
    CUdevice device = new CUdevice();
    seq.rc(rep, "cuCtxGetDevice", 0, cuCtxGetDevice(device));
    seq.check(rep, "device of the context is the one retained", true, seq.device.toString().equals(device.toString()));
    seq.check(rep, "x read back on plain", Sequence.describe(read), Sequence.describe(Sequence.floats(pinned)));
    Sequence.release(pinned, x, e1, e2, e3, high, low, plain);
  }

  private static void describeStreams(Sequence seq, int rep, String when, CUcontext current,
      Map<String, CUstream> streams) {
    for (String name : new String[] {"high", "low", "plain"}) {
      CUstream s = streams.get(name);
      int[] priority = {-99};
      int[] flags = {-99};
      CUcontext ctx = new CUcontext();
      int pc = cuStreamGetPriority(s, priority);
      int fc = cuStreamGetFlags(s, flags);
      int cc = cuStreamGetCtx(s, ctx);
      System.out.println("result rep " + rep + " " + when + " " + name + " priority " + pc + " " + priority[0]
          + " flags " + fc + " " + flags[0] + " ctx " + cc + " " + ctx.toString().equals(current.toString()));
    }
  }

  // ---- dynamic-shared

  private static void dynamicShared(Sequence seq, Sequence.Kernels k, Contract c, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUdeviceptr in = alloc(BYTES);
    CUdeviceptr o1 = alloc(BYTES);
    CUdeviceptr o2 = alloc(BYTES);
    CUdeviceptr o3 = alloc(BYTES);
    CUdeviceptr o4 = alloc(BYTES);
    float[] input = Sequence.ramp(v);
    seq.rc(rep, "cuMemcpyHtoD in", 0, cuMemcpyHtoD(in, Pointer.to(input), BYTES));
    seq.rc(rep, "cuCtxSynchronize", 0, cuCtxSynchronize());
    seq.rc(rep, "block_reverse 256 on s1", 0, shaped(c.blockReverse(), 256, s1, o1, in, 1f, N, seq.cycles));
    seq.rc(rep, "block_reverse 128 on s2", 0, shaped(c.blockReverse(), 128, s2, o2, in, 2f, N, seq.cycles));
    seq.rc(rep, "block_reverse 64 on s1", 0, shaped(c.blockReverse(), 64, s1, o3, o1, 0f, N, seq.cycles));
    seq.rc(rep, "block_reverse 32 on s2", 0, shaped(c.blockReverse(), 32, s2, o4, o2, 3f, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize s1", 0, cuStreamSynchronize(s1));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    float[] e1 = reverse(input, 256, 1f);
    float[] e2 = reverse(input, 128, 2f);
    seq.check(rep, "o1", Sequence.describe(e1), Sequence.describe(Sequence.read(o1)));
    seq.check(rep, "o2", Sequence.describe(e2), Sequence.describe(Sequence.read(o2)));
    seq.check(rep, "o3", Sequence.describe(reverse(e1, 64, 0f)), Sequence.describe(Sequence.read(o3)));
    seq.check(rep, "o4", Sequence.describe(reverse(e2, 32, 3f)), Sequence.describe(Sequence.read(o4)));
    Sequence.release(in, o1, o2, o3, o4, s1, s2);
  }

  /** block_reverse over {@link Sequence#N} elements in blocks of {@code block} threads, with shared memory to match. */
  private static int shaped(CUfunction f, int block, CUstream stream, CUdeviceptr out, CUdeviceptr in, float value,
      int n, long cycles) {
    Pointer params = Pointer.to(Pointer.to(out), Pointer.to(in), Pointer.to(new float[] {value}),
        Pointer.to(new int[] {n}), Pointer.to(new long[] {cycles}));
    return cuLaunchKernel(f, n / block, 1, 1, block, 1, 1, 4 * block, stream, params, null);
  }

  private static float[] reverse(float[] in, int block, float value) {
    float[] out = new float[in.length];
    for (int base = 0; base < in.length; base += block) {
      for (int t = 0; t < block; t++) {
        out[base + t] = in[base + block - 1 - t] + value;
      }
    }
    return out;
  }
}
