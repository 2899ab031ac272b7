package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemcpy2DAsync;
import static jcuda.driver.JCudaDriver.cuMemcpy3D;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD2D32;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.driver.JCudaDriver.cuTexObjectCreate;
import static jcuda.driver.JCudaDriver.cuTexObjectDestroy;

import dev.kernelweave.it.semantics.Sequence.Kernels;
import java.nio.ByteOrder;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUDA_MEMCPY2D;
import jcuda.driver.CUDA_MEMCPY3D;
import jcuda.driver.CUDA_RESOURCE_DESC;
import jcuda.driver.CUDA_TEXTURE_DESC;
import jcuda.driver.CUaddress_mode;
import jcuda.driver.CUarray_format;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfilter_mode;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmemorytype;
import jcuda.driver.CUresourcetype;
import jcuda.driver.CUstream;
import jcuda.driver.CUtexObject;

/**
 * Memory that calls reach by rows, through a texture, or from the host directly: 2D and 3D copies
 * and a 2D memset over buffers of 4 rows of 256 floats (a pitch of 1024 bytes) that kernels also
 * write, and a kernel reading through a texture object. The stand-in driver has
 * none of these calls: GPU only. After a run of 16 launches (so that {@code engage=auto} schedules
 * the rest):
 *
 * <ul>
 *   <li>{@code copy-2d-async}: a slow fill of {@code a} on one stream; another waits for its event,
 *       copies 4 rows of 128 floats from page-locked memory over the first half of each row with
 *       {@code cuMemcpy2DAsync}, scales {@code a} and reads it back.
 *   <li>{@code copy-3d}: a slow fill of {@code a} on a blocking stream, then a synchronous
 *       {@code cuMemcpy3D} of 2 x 2 slices of rows of 128 floats from {@code a} into {@code b}
 *       (pitch 512 bytes), then a scale of {@code b} on the blocking stream, read back.
 *   <li>{@code memset-2d-sync}: a slow fill on a blocking stream, a synchronous
 *       {@code cuMemsetD2D32} over the first 128 floats of each row (after the fill: the legacy
 *       stream waits for it), then a scale on the blocking stream (after the memset), read back.
 *   <li>{@code texture}: a slow fill of {@code x}, then on the same stream a kernel that reads
 *       {@code x} through a texture object and writes {@code 2x + 1} into {@code y}, then a fill
 *       of {@code x} with other values (which must not overtake the read): {@code y} and {@code x}
 *       read back.
 * </ul>
 */
public final class StridedMemoryProgram {

  private static final int ROWS = 4;
  private static final int ROW_FLOATS = N / ROWS;
  private static final long PITCH = 4L * ROW_FLOATS;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "copy-2d-async");
    Kernels kernels = Kernels.load();
    CUfunction textureAxpb = seq.variant.equals("texture")
        ? Sequence.function(Sequence.load("/ptx/textures.ptx"), "texture_axpb") : null;
    Sequence.engagingRun(kernels.slowFill());
    seq.repeat(17f, kernels, Map.of(
        "copy-2d-async", (q, k, rep, v) -> copy2dAsync(q, rep, v, k.slowFill(), k.slowAxpb()),
        "copy-3d", (q, k, rep, v) -> copy3d(q, rep, v, k.slowFill(), k.slowAxpb()),
        "memset-2d-sync", (q, k, rep, v) -> memset2dSync(q, rep, v, k.slowFill(), k.slowAxpb()),
        "texture", (q, k, rep, v) -> texture(q, rep, v, k.slowFill(), textureAxpb)));
  }


  private static void copy2dAsync(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr a = alloc(BYTES);
    Pointer source = allocHost(BYTES / 2);
    Pointer back = allocHost(BYTES);
    float[] expected = Sequence.ramp(v);
    var floats = source.getByteBuffer(0, BYTES / 2).order(ByteOrder.nativeOrder()).asFloatBuffer();
    for (int r = 0; r < ROWS; r++) {
      for (int c = 0; c < ROW_FLOATS / 2; c++) {
        float value = -1000f * (r + 1) - c - rep;
        floats.put(r * ROW_FLOATS / 2 + c, value);
        expected[r * ROW_FLOATS + c] = value;
      }
    }
    expected = Sequence.axpb(expected, 2f, 1f);
    seq.rc(rep, "slow_fill on s1", 0, Sequence.launch(slowFill, s1, a, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s1));
    seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(s2, e, 0));
    CUDA_MEMCPY2D c = new CUDA_MEMCPY2D();
    c.srcMemoryType = CUmemorytype.CU_MEMORYTYPE_HOST;
    c.srcHost = source;
    c.srcPitch = PITCH / 2;
    c.dstMemoryType = CUmemorytype.CU_MEMORYTYPE_DEVICE;
    c.dstDevice = a;
    c.dstPitch = PITCH;
    c.WidthInBytes = PITCH / 2;
    c.Height = ROWS;
    seq.rc(rep, "cuMemcpy2DAsync on s2", 0, cuMemcpy2DAsync(c, s2));
    seq.rc(rep, "slow_axpb on s2", 0, Sequence.launch(slowAxpb, s2, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(back, a, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    seq.check(rep, "a", Sequence.describe(expected), Sequence.describe(Sequence.floats(back)));
    cuStreamSynchronize(s1);
    Sequence.release(e, source, back, a, s1, s2);
  }

  private static void copy3d(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream s = stream(0);
    CUdeviceptr a = alloc(BYTES);
    CUdeviceptr b = alloc(BYTES);
    seq.rc(rep, "slow_fill b", 0, Sequence.launch(slowFill, s, b, -v, N, seq.cycles));
    seq.rc(rep, "slow_fill a", 0, Sequence.launch(slowFill, s, a, v, N, seq.cycles));
    CUDA_MEMCPY3D c = new CUDA_MEMCPY3D();
    c.srcMemoryType = CUmemorytype.CU_MEMORYTYPE_DEVICE;
    c.srcDevice = a;
    c.srcPitch = PITCH;
    c.srcHeight = 2;
    c.dstMemoryType = CUmemorytype.CU_MEMORYTYPE_DEVICE;
    c.dstDevice = b;
    c.dstPitch = PITCH / 2;
    c.dstHeight = 2;
    c.WidthInBytes = PITCH / 2;
    c.Height = 2;
    c.Depth = 2;
    seq.rc(rep, "cuMemcpy3D", 0, cuMemcpy3D(c));
    seq.rc(rep, "slow_axpb b", 0, Sequence.launch(slowAxpb, s, b, 2f, 1f, N, seq.cycles));
    float[] ha = Sequence.ramp(v);
    float[] expected = Sequence.ramp(-v);
    // Rows of 128 floats packed in b: row r of a (its first half) is row r of b.
    for (int r = 0; r < ROWS; r++) {
      System.arraycopy(ha, r * ROW_FLOATS, expected, r * ROW_FLOATS / 2, ROW_FLOATS / 2);
    }
    expected = Sequence.axpb(expected, 2f, 1f);
    seq.check(rep, "b", Sequence.describe(expected), Sequence.describe(Sequence.read(b)));
    Sequence.release(a, b, s);
  }

  private static void memset2dSync(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream s = stream(0);
    CUdeviceptr a = alloc(BYTES);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, a, v, N, seq.cycles));
    seq.rc(rep, "cuMemsetD2D32", 0, cuMemsetD2D32(a, PITCH, Float.floatToRawIntBits(-3f), ROW_FLOATS / 2, ROWS));
    seq.rc(rep, "slow_axpb", 0, Sequence.launch(slowAxpb, s, a, 2f, 1f, N, seq.cycles));
    float[] expected = Sequence.ramp(v);
    for (int r = 0; r < ROWS; r++) {
      for (int c = 0; c < ROW_FLOATS / 2; c++) {
        expected[r * ROW_FLOATS + c] = -3f;
      }
    }
    seq.check(rep, "a", Sequence.describe(Sequence.axpb(expected, 2f, 1f)), Sequence.describe(Sequence.read(a)));
    Sequence.release(a, s);
  }

  private static void texture(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction textureAxpb) {
    CUstream s = stream(0);
    CUdeviceptr x = alloc(BYTES);
    CUdeviceptr y = alloc(BYTES);
    CUDA_RESOURCE_DESC resource = new CUDA_RESOURCE_DESC();
    resource.resType = CUresourcetype.CU_RESOURCE_TYPE_LINEAR;
    resource.linear_devPtr = x;
    resource.linear_format = CUarray_format.CU_AD_FORMAT_FLOAT;
    resource.linear_numChannels = 1;
    resource.linear_sizeInBytes = BYTES;
    CUDA_TEXTURE_DESC description = new CUDA_TEXTURE_DESC();
    description.addressMode = new int[] {CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP, CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP,
        CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP};
    description.filterMode = CUfilter_mode.CU_TR_FILTER_MODE_POINT;
    CUtexObject texture = new CUtexObject();
    seq.rc(rep, "cuTexObjectCreate", 0, cuTexObjectCreate(texture, resource, description, null));
    seq.rc(rep, "slow_fill x", 0, Sequence.launch(slowFill, s, x, v, N, seq.cycles));
    Pointer params = Pointer.to(Pointer.to(y), Pointer.to(texture), Pointer.to(new int[] {N}),
        Pointer.to(new long[] {seq.cycles}));
    seq.rc(rep, "texture_axpb", 0, jcuda.driver.JCudaDriver.cuLaunchKernel(textureAxpb, Sequence.BLOCKS, 1, 1,
        Sequence.THREADS, 1, 1, 0, s, params, null));
    seq.rc(rep, "slow_fill x again", 0, Sequence.launch(slowFill, s, x, -v, N, 0L));
    seq.check(rep, "y", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 2f, 1f)), Sequence.describe(Sequence.read(y)));
    seq.check(rep, "x", Sequence.describe(Sequence.ramp(-v)), Sequence.describe(Sequence.read(x)));
    cuTexObjectDestroy(texture);
    Sequence.release(x, y, s);
  }
}
