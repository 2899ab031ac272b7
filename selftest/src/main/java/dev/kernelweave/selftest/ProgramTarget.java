package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.scheduler.StreamDevice;
import java.util.List;

/**
 * A device that runs self-test programs: the simulated GPU, or a real one through JCuda.
 *
 * <p>Lanes are numbered as in {@link StreamDevice}: {@code 0 .. streams()-1} are pool streams,
 * created through {@link #createStream} before first use; {@code streams()} is the legacy default
 * stream, which needs no creation. The scheduler drives the {@link StreamDevice} methods; the
 * program runners ({@link ProgramRunner}) drive the rest with exactly the calls an application
 * would make, issued on the lane the scheduler chose (or, in the serial reference run, always on
 * the legacy lane).
 *
 * <p>Every operation with a {@code lane} is asynchronous with respect to the host unless said
 * otherwise: it is queued behind the lane's earlier work. Addresses are the device's own (device
 * or page-locked host memory, one address space), not handles: the runner adds byte offsets to
 * them, and an address handed out again after a free must come back as the same number, so that
 * the scheduler meets reused addresses as it does under the agent.
 *
 * <p>Implementations are used by one thread, one program run per instance ({@link Factory#open}),
 * and release everything in {@link #close}.
 */
public interface ProgramTarget extends StreamDevice, AutoCloseable {

  /** Opens a fresh target for one program run. */
  @FunctionalInterface
  interface Factory {
    /**
     * @param streams pool lanes the scheduler may use
     * @param seed for targets with their own randomness (the simulator's clock); others ignore it
     */
    ProgramTarget open(int streams, long seed);
  }

  /** The number of pool lanes; also the index of the legacy lane. */
  int streams();

  /**
   * The lane of an application stream handle, for calls that stay on the application's own stream:
   * 0 and 0x1 are the legacy lane, 0x2 the calling thread's per-thread stream, any other handle a
   * stream of its own, created on first use as a blocking stream unless {@link #createAppStream}
   * said otherwise.
   */
  int appStreamLane(long handle);

  /**
   * The application thread whose calls follow, until the next call of this method: {@code 0x2}
   * names that thread's own default stream.
   */
  void callingThread(int thread);

  /**
   * {@code cuStreamCreate}: from now on {@link #appStreamLane} of {@code handle} is a stream created
   * with flags 0 (blocking: CUDA's legacy stream synchronizes with it) or {@code
   * CU_STREAM_NON_BLOCKING}.
   */
  void createAppStream(long handle, boolean nonBlocking);

  /** {@code cuMemAlloc}: device memory, contents undefined. */
  long allocDevice(int bytes);

  /** {@code cuMemFree}: takes effect at once; the caller has made sure no pending work uses it. */
  void freeDevice(long address);

  /** {@code cuMemAllocHost}: page-locked host memory, zeroed, that the host reads directly. */
  long allocHost(int bytes);

  /** Ordinary host memory, zeroed, made page-locked by {@code cuMemHostRegister}. */
  long registerHost(int bytes);

  /** The host reads page-locked memory as it is now, without any synchronization. */
  byte[] readHost(long address, int bytes);

  /** The host writes page-locked memory directly, without any synchronization. */
  void writeHost(long address, byte[] data);

  /**
   * The address of the module's {@code __constant__ unsigned kw_constant[4]} ({@code
   * cuModuleGetGlobal}), the same for the life of the target.
   */
  long moduleConstant();

  /**
   * {@code cuLaunchKernel} of {@code kernel} (see {@link SelfTestKernel}) on {@code lane}, with one thread
   * per element; {@code out} is the pointer the kernel is given ({@link SelfTestKernel#outPointerOffset}
   * bytes past the start of its output range).
   */
  void launch(int lane, SelfTestKernel kernel, long out, long in1, long in2, int n, int k);

  /** The kernel that reads the constant: {@code out[i] = (k ^ constant[0]) + i * 0x9E3779B9}, on {@code lane}. */
  void launchReadingConstant(int lane, long out, int n, int k);

  /**
   * A kernel whose code the agent cannot read: reads a device address stored at {@code slot} and
   * writes {@code target[i] = k + i * 0x9E3779B9} for {@code i < n} through it, on {@code lane}.
   */
  void launchWithoutPtx(int lane, long slot, int n, int k);

  /**
   * {@code cuLaunchHostFunc} on {@code lane}: once the lane reaches it and, when {@code gate} is not
   * negative, once {@link #openGate} opened that gate, sets the 32-bit values {@code dst[i] = src[i] *
   * 5 + 1} of host memory.
   */
  void launchHostFunction(int lane, int gate, long src, long dst, int bytes);

  /** The host action a host function waits for. */
  void openGate(int gate);

  /** {@code cuMemcpyHtoDAsync} from page-locked memory on {@code lane}. */
  void copyHostToDeviceAsync(int lane, long dst, long hostSrc, int bytes);

  /**
   * {@code cuMemcpyHtoD} as written: a synchronous copy on the legacy lane, which returns once all
   * earlier work of the legacy lane (and so, through CUDA's implicit synchronization, of the blocking
   * lanes) has completed and {@code src} has been read; the device copy may complete later.
   */
  void copyHostToDevice(long dst, byte[] src);

  /**
   * {@code cuMemcpyDtoH} as written: a synchronous copy on the legacy lane, which returns once the
   * copy (and so all earlier work on the legacy lane) has completed.
   */
  void copyDeviceToHost(byte[] dst, long src);

  /** {@code cuMemcpyDtoHAsync} into page-locked memory on {@code lane}. */
  void copyDeviceToHostAsync(int lane, long hostDst, long src, int bytes);

  /** {@code cuMemcpyDtoDAsync} on {@code lane}; the ranges do not overlap. */
  void copyDeviceToDevice(int lane, long dst, long src, int bytes);

  /** {@code cuMemsetD8Async} on {@code lane}; on the legacy lane, {@code cuMemsetD8} as written. */
  void memset(int lane, long dst, byte value, int bytes);

  /** {@code cuStreamSynchronize} of a lane: the host waits for the work issued there so far. */
  void synchronizeLane(int lane);

  /** {@code cuEventRecord} of an application event (ids apart from the scheduler's) on {@code lane}. */
  void recordAppEvent(int appEvent, int lane);

  /** {@code cuStreamWaitEvent} of an application event onto {@code lane}; nothing if it was never recorded. */
  void waitAppEvent(int lane, int appEvent);

  /** The scheduler's wait for an application event: handles are the runner's event ids plus one. */
  @Override
  default void laneWaitsForAppEvent(int lane, long appEvent) {
    waitAppEvent(lane, (int) (appEvent - 1));
  }

  /** {@code cuEventSynchronize} of an application event; returns at once if it was never recorded. */
  void synchronizeAppEvent(int appEvent);

  /**
   * Issues the launches the scheduler held, alone or as graphs, on these lanes; null where the
   * target has none, and the scheduler then holds nothing (graphs off).
   */
  default GraphDevice graphs() {
    return null;
  }

  /**
   * The function handle ({@code CUfunction}) of {@code kernel}, as {@link GraphDevice#launch} takes
   * it back from a launch's record; 0 where the target has no graphs.
   */
  default long function(SelfTestKernel kernel) {
    return 0;
  }

  /** The handle of the kernel {@link #launchReadingConstant} launches; 0 where the target has no graphs. */
  default long readsConstantFunction() {
    return 0;
  }

  /** The handle of the kernel {@link #launchWithoutPtx} launches; 0 where the target has no graphs. */
  default long withoutPtxFunction() {
    return 0;
  }

  /**
   * Problems the device itself saw (a race, a use after free, a stream used before creation), in
   * the order seen; empty for a device that cannot tell.
   */
  default List<String> faults() {
    return List.of();
  }

  /** Frees everything this target allocated or created. */
  @Override
  void close();
}
