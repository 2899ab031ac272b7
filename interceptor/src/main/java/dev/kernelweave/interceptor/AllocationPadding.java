package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.memory.AllocationTable;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * Keeps the end of each small device allocation apart from the start of the next, by asking CUDA
 * for one byte more than the program did.
 *
 * <p>Why: on a GPU consecutive allocations are adjacent, so the base of one buffer is mostly also
 * the end of another, and a kernel given that pointer may index either way: unless its PTX proves
 * it only indexes forward, the agent must order it after the users of both buffers ({@link
 * dev.kernelweave.memory.AllocationTable#addPointerAccess}). With a gap, a base names its own
 * allocation alone, and an end pointer falls inside the allocation it ends.
 *
 * <p>Only while the agent schedules: in {@code mode=passthrough} every call is made as written. And
 * only where it matters: CUDA aligns every allocation to at least {@value #ALIGNMENT} bytes, so an
 * allocation whose size is not a multiple of that cannot end where another starts.
 *
 * <p>What the program sees is unchanged: its pointer, the size it asked for in address-range
 * queries ({@link #visibleSize}), and the byte after its allocation belonging to no allocation of its
 * own ({@link #queriedPointer}). Where the extra byte does not fit, the allocation is made as asked
 * ({@link #retryAsAsked}), the error of the padded try is not seen, and that allocation simply keeps
 * the end-pointer rule. Only allocations below 1 MiB are padded ({@link #LARGEST_PADDED}): there
 * the driver's granularity is 512 bytes, so the byte costs at most that; from 1 MiB a granule is
 * 2 MiB, and such buffers are rarely launch-bound. CUDA promises no layout between allocations, so no
 * correct program can tell.
 *
 * <p>Thread-safe: the record of padded allocations ({@link AgentState#paddedAllocations}) is a
 * concurrent map, touched by allocations and frees only, never by launches.
 */
public final class AllocationPadding {

  private AllocationPadding() {}

  /**
   * The largest request that is padded. Measured on an H100 (driver 580): requests up to 1 MiB are
   * placed 512 bytes apart, larger ones on 2 MiB boundaries; so one byte more than 1 MiB - 1 would
   * cost a whole 2 MiB granule.
   */
  public static final long LARGEST_PADDED = (1L << 20) - 1;

  /** The alignment CUDA promises for every allocation of device memory. */
  public static final long ALIGNMENT = 256;

  private static final int OUT_OF_MEMORY = 2; // CUDA_ERROR_OUT_OF_MEMORY, cudaErrorMemoryAllocation

  /**
   * The size to ask CUDA for when the program asks {@code method} for {@code size} bytes: device
   * memory of {@code cuMemAlloc} or {@code cudaMalloc} is padded; managed memory, which the host
   * reaches too, is ordered as a whole anyway.
   */
  public static long padded(String method, long size) {
    return size > 0 && size <= LARGEST_PADDED && size % ALIGNMENT == 0 && (method.equals("cuMemAlloc") || method.equals("cudaMalloc"))
        && AgentState.current().scheduling ? size + 1 : size; // passing through, every call is as written
  }

  /**
   * Whether a padded try ran out of memory, by its result or, with JCuda's exceptions enabled, its
   * exception: CUDA may have had room for the size asked but not for one byte more.
   */
  public static boolean ranOutOfMemory(int result, Throwable thrown) {
    if (thrown == null) {
      return result == OUT_OF_MEMORY;
    }
    String message = String.valueOf(thrown.getMessage());
    return thrown instanceof jcuda.CudaException
        && (message.contains("CUDA_ERROR_OUT_OF_MEMORY") || message.contains("cudaErrorMemoryAllocation"));
  }

  /**
   * Makes the allocation the program asked for after its padded try ran out of memory, without the
   * agent's interception; a runtime-API try's error is cleared from the thread's last error when
   * the program had none before ({@code lastErrorBefore}), as if the failed try had never been made.
   *
   * @return CUDA's result for the allocation as asked
   */
  public static int retryAsAsked(String method, Pointer pointer, long asked, int lastErrorBefore) {
    if (method.startsWith("cuda")) {
      int result = JCudaNatives.runtimeAllocate(pointer, asked);
      if (result == 0 && lastErrorBefore == 0) {
        JCudaNatives.runtimeGetLastError();
      }
      return result;
    }
    return JCudaNatives.allocate((CUdeviceptr) pointer, asked);
  }

  /** The runtime API's last error before a padded try, so that a retry can leave it as it was. */
  public static int lastErrorBefore(String method, long asked) {
    return method.startsWith("cuda") && padded(method, asked) != asked ? JCudaNatives.runtimePeekAtLastError() : 0;
  }

  /** Records whether the allocation at {@code base}, of {@code asked} bytes, was made padded. */
  public static void allocated(long base, long asked, boolean padded) {
    Map<Long, Long> requested = AgentState.current().paddedAllocations;
    if (padded) {
      requested.put(base, asked);
    } else if (!requested.isEmpty()) {
      requested.remove(base); // an allocation whose free the agent did not see
    }
  }

  /** Forgets the allocation at {@code base}. */
  static void freed(AgentState state, long base) {
    if (!state.paddedAllocations.isEmpty()) {
      state.paddedAllocations.remove(base);
    }
  }

  /**
   * The pointer to ask CUDA about in place of the program's {@code pointer} in an address query
   * ({@code cuMemGetAddressRange}, {@code cuPointerGetAttribute}): the program's own, except where it
   * is the padding byte of an allocation, which without the agent would lie past the allocation.
   * There the next byte answers for it: it lies past the padded allocation inside the granule CUDA
   * rounded it up to (the size asked is a multiple of {@link #ALIGNMENT}, and so is the granule),
   * so CUDA gives the answer it gives for a byte past an allocation.
   */
  public static CUdeviceptr queriedPointer(CUdeviceptr pointer) {
    AgentState state = AgentState.current();
    if (pointer == null || state.paddedAllocations.isEmpty()) {
      return pointer;
    }
    long address = JCudaPointers.address(pointer);
    AllocationTable.Allocation found = state.threads.current().found;
    if (!state.allocations.lookup(address - 1, found)) {
      return pointer;
    }
    Long asked = state.paddedAllocations.get(found.base);
    if (asked == null || address != found.base + asked) {
      return pointer;
    }
    CUdeviceptr past = new CUdeviceptr();
    JCudaPointers.setNativePointer(past, address + 1);
    return past;
  }

  /** {@code CU_POINTER_ATTRIBUTE_RANGE_SIZE}. */
  public static final int RANGE_SIZE_ATTRIBUTE = 12;

  /**
   * The size of the allocation holding {@code address} that the program would have been told, CUDA
   * having answered {@code reported}.
   */
  public static long visibleRangeSize(long address, long reported) {
    AgentState state = AgentState.current();
    if (state.paddedAllocations.isEmpty()) {
      return reported;
    }
    AllocationTable.Allocation found = state.threads.current().found;
    return state.allocations.lookup(address, found) ? visibleSize(state, found.base, reported) : reported;
  }

  /**
   * Corrects a {@code CU_POINTER_ATTRIBUTE_RANGE_SIZE} answer written into Java memory (a {@code
   * long[]}, a {@code byte[8]}, any array or buffer JCuda hands the driver), where JCuda had it
   * written: from the pointer's byte offset, whatever the buffer's position.
   */
  public static void correctRangeSizeAttribute(Pointer data, long address) {
    if (data == null || !JCudaPointers.holdsLong(data)) {
      return;
    }
    long reported = JCudaPointers.readLong(data);
    long visible = visibleRangeSize(address, reported);
    if (visible != reported) {
      JCudaPointers.writeLong(data, visible);
    }
  }

  /**
   * The size the program would have been told for the allocation at {@code base}, CUDA having
   * answered {@code reported}: the size asked for where the allocation was padded.
   */
  public static long visibleSize(long base, long reported) {
    return visibleSize(AgentState.current(), base, reported);
  }

  private static long visibleSize(AgentState state, long base, long reported) {
    Long asked = state.paddedAllocations.get(base);
    return asked != null && reported == asked + 1 ? asked : reported;
  }
}
