package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.memory.MemoryKind;
import dev.kernelweave.scheduler.Placement;
import java.nio.Buffer;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/**
 * Synchronous copies between Java memory and the device that the agent makes through its own
 * page-locked buffers. Host-to-device copies from Java memory ({@code cuMemcpyHtoD(dst,
 * Pointer.to(array), n)}) need not block: CUDA promises only that the source may be reused once the call returns,
 * so the agent copies the source into one of its page-locked buffers ({@link StagingBuffers}) and
 * issues the copy asynchronously on the lane the scheduler picks, where the copy's consumers then
 * extend the chain with no event.
 *
 * <p>What the program can observe stays as without the agent: the destination gets the bytes the
 * array held at the call; the host still waits for the pending work CUDA would have completed whose
 * effect it can see ({@link Placement#STAGED}). Errors: a copy is staged only when its destination
 * range lies inside one device allocation the agent knows and its source inside the array, so the
 * asynchronous copy cannot fail where the synchronous one would succeed or fail otherwise; when it
 * fails anyway (a context already broken), or no buffer is free, JCuda's own synchronous call runs
 * on the legacy stream after the copy's predecessors and returns (or throws) what CUDA says. A copy
 * larger than {@link dev.kernelweave.scheduler.Dispatch#STAGED_WHEN_IDLE_BYTES} is staged only when
 * the synchronous copy would have to wait for pending work; otherwise CUDA's own copy is faster.
 *
 * <p>Called on the application's thread inside its call; never throws.
 */
public final class StagedCopies {

  private StagedCopies() {}

  /**
   * Places a synchronous copy of the driver API ({@code cuMemcpyHtoD}, {@code cuMemcpyDtoH},
   * {@code cuMemcpyDtoD}, {@code cuMemcpy}) whose accesses the record holds: staged when its row
   * allows and it can be ({@link #hostToDevice}, {@link #deviceToHost}), else as its row says.
   *
   * @return the thread's {@link IssuedByAgent} holding {@code r} when the agent made the copy and
   *     JCuda's call must be skipped; otherwise {@code r}, for JCuda's call to run as written
   */
  public static Object copy(CallRecord r, Pointer destination, Pointer source, long bytes) {
    if (r == null || !Calls.rowOf(r).canBeStaged()) {
      Calls.placeAsRowSays(r);
      return r;
    }
    return r.kind == CallKind.COPY_HOST_TO_DEVICE ? hostToDevice(r, (CUdeviceptr) destination, source, bytes)
        : deviceToHost(r, destination, (CUdeviceptr) source, bytes);
  }

  /**
   * Places a synchronous {@code cuMemcpyHtoD} whose accesses the record holds: staged and issued
   * when it can be, otherwise as a synchronous copy on the legacy stream.
   *
   * @return the thread's {@link IssuedByAgent} holding {@code r} when the copy was issued and JCuda's
   *     call must be skipped; otherwise {@code r}, for JCuda's call to run as written
   */
  public static Object hostToDevice(CallRecord r, CUdeviceptr destination, Pointer source, long bytes) {
    ContextScheduling cs = place(r, r != null && stageable(r, destination, source, bytes));
    if (cs == null) {
      return r;
    }
    CallScope scope = (CallScope) r;
    try {
      int buffer = cs.staging.reserve(cs.dispatch.scheduler());
      if (buffer < 0) {
        r.stream = cs.dispatch.stagingFailed(r, scope.ticket);
        return r;
      }
      int result = stageInPieces(cs.staging, buffer, destination, source, bytes, cs.device.stream(r.stream));
      if (result != 0) {
        // Nothing is left queued: JCuda's own call reports the error, as it would without the agent.
        r.stream = cs.dispatch.stagingFailed(r, scope.ticket);
        return r;
      }
      cs.staging.readBy(buffer, r.stream, cs.dispatch.scheduler().nextPosition(r.stream));
      return Calls.takenOver(r, false);
    } catch (Throwable e) {
      Calls.abandon(r, e);
      return r;
    }
  }

  /**
   * Places a synchronous {@code cuMemcpyDtoH} into Java memory whose accesses the record holds: one
   * of at most {@link StagingBuffers#PIECE} bytes (a read-back of results, scores, a flag) is queued
   * into one of the agent's page-locked buffers behind what it must follow, waited for without the
   * context's lock, and copied into the program's array ({@link Placement#STAGED_READ}); a larger
   * one is a synchronous copy as written, which CUDA pipelines through its own buffers, where the
   * agent's copy into the array could only start once the whole copy landed. Either way the call returns once the bytes are in the
   * array and everything CUDA completes before a synchronous copy returns is complete.
   *
   * @return the thread's {@link IssuedByAgent} holding {@code r} when the agent made the copy and
   *     JCuda's call must be skipped; otherwise {@code r}, for JCuda's call to run as written
   */
  public static Object deviceToHost(CallRecord r, Pointer destination, CUdeviceptr source, long bytes) {
    ContextScheduling cs = place(r, r != null && bytes <= StagingBuffers.PIECE && stageable(r, source, destination, bytes));
    if (cs == null) {
      return r;
    }
    CallScope scope = (CallScope) r;
    try {
      int buffer = cs.staging.reserve(cs.dispatch.scheduler());
      // Without a buffer, or when the copy cannot be queued, JCuda's own call runs on the lane, after
      // the same waits, and reports what CUDA says.
      if (buffer < 0 || JCudaNatives.copyToHostAsync(cs.staging.pointer(buffer), source, bytes,
          cs.device.stream(r.stream)) != 0) {
        cs.dispatch.stagedReadFailed(r, scope.ticket);
        return r;
      }
      cs.staging.readBy(buffer, r.stream, Long.MAX_VALUE); // the host reads it below
      cs.dispatch.awaitStagedRead(r, scope.ticket);
      cs.staging.copyOut(buffer, JCudaPointers.buffer(destination), JCudaPointers.byteOffset(destination), bytes);
      cs.staging.readBy(buffer, r.stream, 0);
      return Calls.takenOver(r, false);
    } catch (Throwable e) {
      Calls.abandon(r, e);
      return r;
    }
  }

  /**
   * Places the copy: as its row's staged placement when it can be staged, else as its row says (a
   * synchronous copy on the legacy stream). Returns the context's scheduling when the agent makes the copy under the lock it now
   * holds; null when JCuda's call runs as written (not staged, passing through, a stream is
   * capturing, or a large copy that would wait for nothing, {@link
   * dev.kernelweave.scheduler.Dispatch#STAGED_WHEN_IDLE_BYTES}).
   */
  private static ContextScheduling place(CallRecord r, boolean stageable) {
    if (r == null) {
      return null;
    }
    CudaCall row = Calls.rowOf(r);
    if (!stageable || !row.canBeStaged()) {
      Calls.placeAsRowSays(r);
      return null;
    }
    Placement staged = row.stagedPlacement();
    Calls.place(r, staged);
    CallScope scope = (CallScope) r;
    ContextScheduling cs = scope.scheduling;
    // The dispatch may place a large copy as written, when staging it would save no wait.
    return r.stream < 0 || cs == null || !scope.ticket.holdsLock() || scope.ticket.placement() != staged ? null : cs;
  }

  /**
   * Stages the source into the buffer and queues its copy to the device on {@code stream}, a
   * {@link StagingBuffers#PIECE} at a time. When a piece cannot be queued, waits for the pieces
   * queued before it (they read the buffer, which is then free again) and returns the error.
   */
  private static int stageInPieces(StagingBuffers staging, int buffer, CUdeviceptr destination, Pointer source,
      long bytes, CUstream stream) {
    Buffer array = JCudaPointers.buffer(source);
    long offset = JCudaPointers.byteOffset(source);
    Pointer staged = staging.pointer(buffer);
    for (long at = 0; at < bytes; at += StagingBuffers.PIECE) {
      long size = Math.min(StagingBuffers.PIECE, bytes - at);
      staging.copy(buffer, array, offset + at, at, size);
      int result = at == 0
          ? JCudaNatives.copyToDeviceAsync(destination, staged, size, stream)
          : JCudaNatives.copyToDeviceAsync(destination.withByteOffset(at), staged.withByteOffset(at), size, stream);
      if (result != 0) {
        if (at > 0) {
          JCudaNatives.synchronizeStream(stream);
        }
        return result;
      }
    }
    return 0;
  }

  /**
   * Whether a copy between {@code device} and {@code java} can be staged: scheduling is on, the host
   * side is a Java array whose range holds {@code bytes}, and the device range lies inside one known
   * device allocation.
   */
  static boolean stageable(CallRecord r, CUdeviceptr device, Pointer java, long bytes) {
    CallScope scope = (CallScope) r;
    if (!scope.thread.state.scheduling || r.touchesUnknownMemory || r.touchesHostMemory || device == null
        || java == null || JCudaPointers.pointers(java) != null) {
      return false;
    }
    Buffer buffer = JCudaPointers.buffer(java);
    if (!StagingBuffers.canCopy(buffer, JCudaPointers.byteOffset(java), bytes)) {
      return false;
    }
    long address = JCudaPointers.address(device);
    AllocationTable.Allocation found = scope.found;
    return address != 0 && scope.allocations.lookup(address, found) && found.kind == MemoryKind.DEVICE
        && address - found.base + bytes <= found.size;
  }
}
