package dev.kernelweave.selftest;

import java.util.Locale;

/**
 * One call of a self-test program, as the application would make it. Device buffers ({@code b3})
 * and page-locked host buffers ({@code h1}) are named by number; ranges are in 32-bit elements.
 * Application streams are handles ({@code 0}: the default stream); application events are numbers.
 * {@code thread} is the application thread that makes the call; the program's order is the order
 * in which calls reach the agent.
 */
public sealed interface Op {

  /** The application thread making the call. */
  int thread();

  /** One readable line. */
  String describe();

  /** Where a range starts: buffer {@code buf}, element {@code offset}. */
  record At(int buf, int offset) {
    String describe(int n) {
      return "b" + buf + "[" + offset + ".." + (offset + n) + ")";
    }
  }

  /** How the agent sees a launch. */
  enum LaunchMode {
    /** Read and write sets known (from PTX). */
    PRECISE,
    /** Nothing known about the parameters: every pointer read-write. */
    CONSERVATIVE,
    /** A parameter points into unknown memory: the agent makes the launch a barrier. */
    UNKNOWN_POINTER,
    /** A library call the agent does not understand, issued by the library on the legacy stream. */
    OPAQUE,
    /** The real launch fails (say, too many resources requested): nothing runs. */
    FAILS
  }

  /** Page-locked host memory, for asynchronous reads. */
  record AllocHost(int thread, int host, int elements) implements Op {
    @Override
    public String describe() {
      return "allocHost h" + host + " " + elements + " elements";
    }
  }

  /** A device allocation, initialized at once with a synchronous copy of data made from {@code dataSeed}. */
  record Alloc(int thread, int buf, int elements, long dataSeed) implements Op {
    @Override
    public String describe() {
      return "alloc b" + buf + " " + elements + " elements, then copyHtoD of data#" + Long.toHexString(dataSeed & 0xFFFF);
    }
  }

  record Free(int thread, int buf) implements Op {
    @Override
    public String describe() {
      return "free b" + buf;
    }
  }

  /** A kernel launch; {@code in1}, {@code in2} are null when the kernel does not read them. */
  record Launch(int thread, long stream, Kernel kernel, At out, At in1, At in2, int n, int k, LaunchMode mode)
      implements Op {
    @Override
    public String describe() {
      StringBuilder s = new StringBuilder();
      s.append(mode == LaunchMode.OPAQUE ? "opaque " : "launch ").append(kernel).append(' ');
      s.append(out.describe(kernel.outElements(n)));
      if (in1 != null) {
        s.append(kernel.outMode().reads() ? " <-> " : " <- ").append(in1.describe(n));
      }
      if (in2 != null) {
        s.append(", ").append(in2.describe(n));
      }
      s.append(String.format(Locale.ROOT, "  k=0x%08x", k));
      if (mode != LaunchMode.OPAQUE) {
        s.append("  ").append(Program.stream(stream));
      }
      if (mode == LaunchMode.CONSERVATIVE) {
        s.append("  (parameters unknown: all RW)");
      } else if (mode == LaunchMode.UNKNOWN_POINTER) {
        s.append("  (a pointer into unknown memory)");
      } else if (mode == LaunchMode.FAILS) {
        s.append("  (fails: nothing runs)");
      }
      return s.toString();
    }
  }

  /** {@code cuMemsetD8} ({@code sync}, on the legacy stream as written) or {@code cuMemsetD8Async}. */
  record Memset(int thread, long stream, boolean sync, At dst, int n, byte value) implements Op {
    @Override
    public String describe() {
      return (sync ? "memset " : "memsetAsync ") + dst.describe(n) + String.format(Locale.ROOT, " = 0x%02x", value & 0xFF)
          + (sync ? "" : "  " + Program.stream(stream));
    }
  }

  /** A synchronous copy of data made from {@code dataSeed} into device memory. */
  record Write(int thread, At dst, int n, long dataSeed) implements Op {
    @Override
    public String describe() {
      return "copyHtoD " + dst.describe(n) + " <- data#" + Long.toHexString(dataSeed & 0xFFFF);
    }
  }

  /** A synchronous copy to a Java array: what it returns is observed. */
  record Read(int thread, At src, int n) implements Op {
    @Override
    public String describe() {
      return "copyDtoH " + src.describe(n) + "  (observed)";
    }
  }

  /** An asynchronous copy into page-locked memory; observed later, after a synchronization. */
  record ReadAsync(int thread, long stream, int host, int hostOffset, At src, int n) implements Op {
    @Override
    public String describe() {
      return "copyDtoHAsync h" + host + "[" + hostOffset + ".." + (hostOffset + n) + ") <- " + src.describe(n) + "  "
          + Program.stream(stream);
    }
  }

  /** An asynchronous device-to-device copy. */
  record Copy(int thread, long stream, At dst, At src, int n) implements Op {
    @Override
    public String describe() {
      return "copyDtoDAsync " + dst.describe(n) + " <- " + src.describe(n) + "  " + Program.stream(stream);
    }
  }

  /** {@code cuCtxSynchronize}. */
  record SyncContext(int thread) implements Op {
    @Override
    public String describe() {
      return "ctxSynchronize";
    }
  }

  /** {@code cuStreamSynchronize}. */
  record StreamSync(int thread, long stream) implements Op {
    @Override
    public String describe() {
      return "streamSynchronize " + Program.stream(stream);
    }
  }

  /** {@code cuEventRecord}. */
  record EventRecord(int thread, int event, long stream) implements Op {
    @Override
    public String describe() {
      return "eventRecord e" + event + "  " + Program.stream(stream);
    }
  }

  /** {@code cuEventSynchronize}. */
  record EventSync(int thread, int event) implements Op {
    @Override
    public String describe() {
      return "eventSynchronize e" + event;
    }
  }

  /** The host reads a page-locked buffer directly: observed. */
  record ObserveHost(int thread, int host) implements Op {
    @Override
    public String describe() {
      return "host reads h" + host + "  (observed)";
    }
  }
}
