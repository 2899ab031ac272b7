package dev.kernelweave.interceptor;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.HostBlocking;
import dev.kernelweave.calltable.Operand;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.memory.MemoryKind;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * What a call touches, added to its record between {@link Calls#begin} and its placement: the
 * operands its row names, a launch's parameters read through its kernel's PTX summary, the
 * allocation a free releases, and allocations made.
 *
 * <p>Called on the application's thread inside its call; allocation-free; uses the calling thread's
 * reused lookup objects ({@link CallThread}).
 */
public final class CallAccesses {

  /** Addresses below this are taken for small integers, never for pointers. */
  private static final long LOWEST_ADDRESS = 1L << 32;
  /** Addresses at or above this are outside every address space CUDA hands out on x86-64 and ARM. */
  private static final long HIGHEST_ADDRESS = 1L << 49;

  private CallAccesses() {}

  /**
   * Adds the memory the row's operands touch, argument 0 being {@code first} and argument 1 {@code
   * second}; where the row's call blocks the host for pageable memory, notes whether it does for
   * this call.
   */
  public static void touches(CallRecord r, Pointer first, Pointer second, long bytes) {
    if (r == null) {
      return;
    }
    CudaCall c = Calls.rowOf(r);
    r.bytes = bytes;
    for (int k = 0; k < c.operandCount(); k++) {
      Operand o = c.operand(k);
      Pointer p = o.argument() == 0 ? first : second;
      switch (o.side()) {
        case DEVICE -> device(r, p, bytes, o.access());
        case HOST -> {
          host(r, p, bytes, o.access());
          if (c.blocksHost() == HostBlocking.WHEN_PAGEABLE && o.access().writes()) {
            r.returnsWhenDone = pageable(r, p);
          }
        }
        default -> anyPointer(r, p, bytes, o.access());
      }
    }
  }


  /**
   * Adds an access to device memory at {@code address}, {@code size} bytes (0: to the end of the
   * allocation; {@link AllocationTable#WHOLE_ALLOCATION}: all of it). An address in no known
   * allocation makes the call a barrier.
   */
  public static void device(CallRecord r, long address, long size, AccessMode mode) {
    if (r == null || address == 0) {
      return;
    }
    if (!addKnown(r, address, size, mode)) {
      r.touchesUnknownMemory = true;
    }
  }

  /** {@link #device} for a JCuda device pointer object. */
  public static void device(CallRecord r, NativePointerObject pointer, long size, AccessMode mode) {
    if (r != null && pointer != null) {
      device(r, JCudaPointers.address(pointer), size, mode);
    }
  }

  /**
   * Adds an access to host memory: only pinned memory the agent saw allocated is tracked (the device
   * reads it asynchronously); Java arrays and other host memory are read or written while the call
   * runs, so they order nothing.
   */
  public static void host(CallRecord r, Pointer pointer, long size, AccessMode mode) {
    if (r == null || pointer == null || JCudaPointers.isJavaMemory(pointer)) {
      return;
    }
    addKnown(r, JCudaPointers.address(pointer), size, mode);
  }

  /**
   * Whether host memory is pageable: a Java array or heap buffer, or native memory in no pinned or
   * registered allocation the agent saw. CUDA makes an asynchronous copy into such memory return
   * only once done.
   */
  public static boolean pageable(CallRecord r, Pointer pointer) {
    if (pointer == null) {
      return false;
    }
    if (JCudaPointers.isJavaMemory(pointer)) {
      return true;
    }
    long address = JCudaPointers.address(pointer);
    CallScope s = scopeOf(r);
    return address != 0 && !s.allocations.lookup(address, s.found);
  }

  /**
   * Adds a pointer whose side is not known until looked up (the runtime's {@code cudaMemcpy} with
   * {@code cudaMemcpyDefault}, cuBLAS operands): tracked when it lies in a known allocation; a
   * native address in no allocation makes the call a barrier when it could be device memory.
   */
  public static void anyPointer(CallRecord r, Pointer pointer, long size, AccessMode mode) {
    if (r == null || pointer == null || JCudaPointers.isJavaMemory(pointer)) {
      return;
    }
    long address = JCudaPointers.address(pointer);
    if (address != 0 && !addKnown(r, address, size, mode)) {
      r.touchesUnknownMemory = true;
    }
  }

  /**
   * Copies a launch's parameters into the record and adds the device memory they point to, with
   * the kernel's read/write set where its PTX was analyzed.
   */
  public static void launch(CallRecord r, KernelInfo kernel, Pointer kernelParams, Pointer extra) {
    if (r == null) {
      return;
    }
    r.kernel = kernel.name();
    Modules.addModuleVariableAccesses(r, kernel); // the module variables its PTX uses
    if (kernel.touchesOtherMemory() || extra != null) {
      r.touchesUnknownMemory = true;
    }
    if (kernelParams == null) {
      return;
    }
    NativePointerObject[] params = JCudaPointers.kernelParameters(kernelParams);
    if (params == null) {
      r.touchesUnknownMemory = true;
      return;
    }
    CallScope scope = scopeOf(r);
    for (int i = 0; i < params.length; i++) {
      if (!(params[i] instanceof Pointer p)) {
        r.touchesUnknownMemory = true;
        continue;
      }
      int size = JCudaPointers.parameterSize(p);
      if (size < 0) {
        r.touchesUnknownMemory = true;
        r.addParam(0);
        continue;
      }
      int at = r.addParam(size);
      if (JCudaPointers.copyParameter(p, r.paramBytes, at) != size) {
        r.touchesUnknownMemory = true; // bytes Java cannot read: neither tracked nor held for a graph
        continue;
      }
      int use = kernel.use(i);
      if (use != KernelInfo.VALUE && !addParameterAccesses(scope, kernel, i, size, at, AccessMode.ofOrdinal(use), params)) {
        r.touchesUnknownMemory = true;
      }
    }
  }

  /**
   * Adds what parameter {@code i} (its {@code size} bytes in the record at {@code at}), which the
   * kernel's PTX makes part of an address, lets the kernel touch: every 8-byte word at a 4-byte-aligned
   * offset (a structure packed to 4 bytes holds pointers at offsets 4 mod 8) that lies in a known
   * allocation.
   *
   * @return false where the kernel may touch memory no known allocation covers: a word at a multiple
   *     of 8 where CUDA's addresses lie, in no allocation; or, where the PTX says an address is made
   *     of the parameter and no word is in a known allocation, any word far from 0 (a pointer packed
   *     unaligned, encoded or offset); small words are offsets and counts
   */
  private static boolean addParameterAccesses(CallScope scope, KernelInfo kernel, int i, int size, int at,
      AccessMode mode, NativePointerObject[] params) {
    boolean known = true;
    boolean anyFound = false;
    boolean anyFar = false;
    for (int word = 0; word + 8 <= size; word += 4) {
      long value = littleEndianLong(scope.paramBytes, at + word);
      if (value == 0) {
        continue;
      }
      if (addParameterAccess(scope, kernel, i, size, value, mode, params)) {
        anyFound = true;
        continue;
      }
      anyFar |= value >= LOWEST_ADDRESS || value <= -LOWEST_ADDRESS;
      // A word at 4 mod 8 mostly joins the halves of two fields: only a known allocation counts there.
      known &= (word & 7) != 0 || value < LOWEST_ADDRESS || value >= HIGHEST_ADDRESS;
    }
    return known && (anyFound || !anyFar || kernel.parameterUses() == null);
  }

  /** Records a new allocation after the real call succeeded, and shows it in the call's record. */
  public static void allocated(CallRecord r, long address, long size, MemoryKind kind) {
    if (r == null || address == 0) {
      return;
    }
    CallScope s = scopeOf(r);
    AllocationTable allocations = s.allocations;
    AllocationTable.Allocation found = s.found;
    if (kind == MemoryKind.MODULE_GLOBAL && allocations.lookup(address, found)
        && found.base == address && found.size == size) {
      // The same variable asked for again: it keeps its history, so that its pending users stay ordered.
      r.addAccess(found.id, found.slot, address, 0, size, AccessMode.WRITE);
      return;
    }
    int id = allocations.add(address, size, kind);
    if (allocations.lookup(address, found) && found.id == id) {
      r.addAccess(id, found.slot, address, 0, size, AccessMode.WRITE);
    }
  }

  /**
   * Names the allocation a free releases (the record's first access), so that the scheduler waits
   * for its users and {@link #end} forgets it.
   */
  public static void freeing(CallRecord r, long address) {
    if (r == null || address == 0) {
      return;
    }
    CallScope s = scopeOf(r);
    AllocationTable.Allocation found = s.found;
    if (s.allocations.lookup(address, found) && found.base == address) {
      r.addAccess(found.id, found.slot, found.base, 0, found.size, AccessMode.WRITE);
    }
  }

  /**
   * Adds the memory a kernel may touch through pointer {@code value}, passed in parameter {@code i}
   * of {@code size} bytes: {@code [value + start, value + end)} clipped to the allocation where its
   * PTX bounds the parameter (a pointer passed alone), else the whole allocation (a kernel may index
   * backwards from a pointer into the middle of one). A pointer one past the end of an allocation
   * touches that allocation too, even where the next one starts there, unless the kernel's PTX proves
   * that, for this launch's dimensions, it touches nothing below the pointer ({@link
   * KernelInfo#isForward}): then only the allocation the pointer falls in (on a GPU, allocations are
   * adjacent, so a buffer's base is mostly the end of another).
   *
   * @return false when the value lies in no known allocation, or its bounded extent misses it (the
   *     kernel would touch memory the pointer does not name)
   */
  private static boolean addParameterAccess(CallScope r, KernelInfo kernel, int i, int size, long value,
      AccessMode mode, NativePointerObject[] params) {
    long start = Long.MIN_VALUE;
    long end = Long.MAX_VALUE;
    if (size == Long.BYTES && kernel.isBounded(i)) {
      start = value + kernel.extentStart(i);
      end = value + kernel.extentEnd(i);
    }
    if (size == Long.BYTES && isForward(r, kernel, i, params)) {
      return r.allocations.addAccess(r, value, start, end, mode, r.found);
    }
    return r.allocations.addPointerAccess(r, value, start, end, mode, r.found);
  }

  /**
   * {@link KernelInfo#isForward}, reading the 4-byte parameter its proof depends on (a grid-stride
   * loop's bound) from this launch's parameters. Allocation-free.
   */
  private static boolean isForward(CallScope r, KernelInfo kernel, int i, NativePointerObject[] params) {
    int j = kernel.forwardConditionParameter(i);
    if (j < 0) {
      return kernel.isForward(i, r.gridX, r.blockX);
    }
    if (j >= params.length || !(params[j] instanceof Pointer p) || JCudaPointers.parameterSize(p) != Integer.BYTES) {
      return false;
    }
    byte[] word = r.thread.parameterWord;
    if (JCudaPointers.copyParameter(p, word, 0) != Integer.BYTES) {
      return false;
    }
    return kernel.isForward(i, r.gridX, r.blockX, (int) littleEndianLong(word, 0)); // its low 4 bytes
  }

  private static boolean addKnown(CallRecord r, long address, long size, AccessMode mode) {
    CallScope s = scopeOf(r);
    return s.allocations.addAccess(r, address, size, mode, s.found);
  }

  /** A call {@link Calls#begin} began, with its state's allocations and its thread's scratch. */
  private static CallScope scopeOf(CallRecord r) {
    return (CallScope) r;
  }

  private static long littleEndianLong(byte[] a, int at) {
    long v = 0;
    for (int b = 7; b >= 0; b--) {
      v = (v << 8) | (a[at + b] & 0xFFL);
    }
    return v;
  }
}
