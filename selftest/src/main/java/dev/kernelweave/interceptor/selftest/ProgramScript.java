package dev.kernelweave.interceptor.selftest;

import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.selftest.SelfTestKernel;
import dev.kernelweave.selftest.Op;
import dev.kernelweave.selftest.Program;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Writes self-test programs as scripts for {@link dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer}: one call per line, buffers
 * by number, byte offsets and data spelled out, so that the player needs nothing of the generator.
 * Added from the script's own seed: pauses of the host (a clock that moves: windows end at a pause,
 * a held launch waits for its deadline), runs of a stream's kernels and copies that the program
 * captures into a graph of its own and launches there, and after a call that waits for the device,
 * the queries of streams and events whose answer CUDA then defines.
 */
public final class ProgramScript {

  /** The most a pause lasts, in microseconds: past the 1 ms after which the agent ends a window. */
  public static final int LONGEST_PAUSE_MICROS = 2_500;

  private final StringBuilder text = new StringBuilder();
  private final SplittableRandom pauses;
  /** Which programs cross into a second context, where and how: apart, so that pauses fall as they did. */
  private final SplittableRandom contexts;
  private final double pauseChance;
  /** Where printing kernels follow launches: apart, so that pauses and contexts fall as they did. */
  private final SplittableRandom prints;
  /** Each print channel (a program's stream as one thread uses it) by number, described. */
  private final java.util.Map<Integer, String> printChannels = new java.util.LinkedHashMap<>();
  private final java.util.Map<String, Integer> channelNumbers = new java.util.HashMap<>();
  private final java.util.Map<Integer, Integer> printCounts = new java.util.HashMap<>();

  /**
   * @param pauseSeed where the pauses fall
   * @param pauseChance the chance of a pause before each call
   */
  public ProgramScript(long pauseSeed, double pauseChance) {
    this.pauses = new SplittableRandom(pauseSeed);
    this.contexts = new SplittableRandom(pauseSeed ^ 0x2c0de7L);
    this.pauseChance = pauseChance;
    this.prints = new SplittableRandom(pauseSeed ^ 0x9817fL);
  }

  /** Adds a program, named {@code name} in what the player prints. */
  public ProgramScript add(String name, Program program) {
    return add(name, program, "end", true);
  }

  /**
   * Adds programs the player plays at the same time, each from threads of its own: each must be
   * able to run beside the others ({@link #mayRunBesideOthers}). They make no captures: a capture
   * in CUDA's global mode would fail another thread's allocation.
   */
  public ProgramScript addTogether(java.util.Map<String, Program> programs) {
    text.append("concurrent ").append(programs.size()).append('\n');
    programs.forEach((name, program) -> add(name, program, "end", false));
    return this;
  }

  /**
   * Whether a program shares nothing with others played beside it, and waits for nothing they
   * do: no host function waiting for its host (another program's synchronization would wait for
   * it too), no use of the module's one constant.
   */
  public static boolean mayRunBesideOthers(Program program) {
    return program.ops().stream().noneMatch(op -> op instanceof Op.HostFunction h && h.gate() >= 0
        || op instanceof Op.WriteConstant || op instanceof Op.LaunchReadingConstant);
  }

  /**
   * Adds the last program: the JVM exits once it made its calls, with its work pending, and its
   * shutdown hook synchronizes and observes.
   */
  public ProgramScript addExiting(String name, Program program) {
    return add(name, program, "exit", true);
  }

  /** One program in this many, played alone, crosses into a second context ({@link #secondContext}). */
  public static final int SECOND_CONTEXT_EVERY = 3;

  private ProgramScript add(String name, Program program, String ending, boolean captures) {
    text.append("program ").append(name).append('\n');
    // Each thread's class as a Java thread priority, which the agent's default priority=thread reads.
    program.ops().stream().mapToInt(Op::thread).distinct().sorted().forEach(t -> text.append(t)
        .append(" priority ").append(javaPriority(program.priorityOf(t))).append('\n'));
    List<Op> ops = program.ops();
    List<String> lines = ops.stream().map(ProgramScript::line).toList();
    int captureEnd = -1;
    // Gates a host function waits for that the host has not opened yet: the syncs around a capture
    // would wait for that function, which waits for the host.
    java.util.Set<Integer> closedGates = new java.util.HashSet<>();
    List<Integer> live = new java.util.ArrayList<>();
    java.util.Map<Integer, Integer> elements = new java.util.HashMap<>();
    // Buffers a device address was stored in: they differ from run to run, and so would their copies.
    java.util.Set<Integer> addressSlots = new java.util.HashSet<>();
    // Alone and not exiting: beside others, or with the JVM exiting, the second context would outlive them.
    int secondContextFrom = captures && ending.equals("end") && contexts.nextInt(SECOND_CONTEXT_EVERY) == 0
        ? contexts.nextInt(ops.size()) : Integer.MAX_VALUE;
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      // Nothing the second context's syncs and destroy would wait for may wait for the host.
      List<Integer> sources = live.stream().filter(buf -> !addressSlots.contains(buf)).toList();
      if (i >= secondContextFrom && i > captureEnd && closedGates.isEmpty() && !sources.isEmpty()) {
        int source = sources.get(contexts.nextInt(sources.size()));
        secondContext(source, elements.get(source));
        secondContextFrom = Integer.MAX_VALUE;
      }
      if (op instanceof Op.HostFunction h && h.gate() >= 0) {
        closedGates.add(h.gate());
      } else if (op instanceof Op.OpenGate g) {
        closedGates.remove(g.gate());
      }
      if (captures && i > captureEnd && closedGates.isEmpty() && pauses.nextInt(4) == 0) {
        int end = capturable(ops, lines, i);
        if (end > i) {
          // The program captures these calls on their stream and launches the graph there. The agent
          // leaves what a capture holds as written, ordered against other streams' work as CUDA
          // orders it and no further: synchronizing around it (captureSync, then at captureEnd)
          // keeps a program that races there comparable with its serial run.
          text.append(op.thread()).append(" captureSync\n");
          text.append(op.thread()).append(" captureBegin ").append(stream(lines.get(i))).append('\n');
          captureEnd = end;
        }
      }
      if (i > captureEnd && pauses.nextDouble() < pauseChance) {
        text.append(op.thread()).append(" pause ").append(1 + pauses.nextInt(LONGEST_PAUSE_MICROS)).append('\n');
      }
      text.append(op.thread()).append(' ').append(reshaped(op, lines.get(i), live)).append('\n');
      if (op instanceof Op.LaunchWithoutPtx l) {
        addressSlots.add(l.slot().buf());
      }
      if (op instanceof Op.Alloc a) {
        live.add(a.buf());
        elements.put(a.buf(), a.elements());
      } else if (op instanceof Op.Free f) {
        live.remove(Integer.valueOf(f.buf()));
      }
      if (i == captureEnd) {
        text.append(op.thread()).append(" captureEnd ").append(stream(lines.get(i))).append('\n');
      }
      if (i >= captureEnd && isKernelCall(lines.get(i)) && prints.nextInt(PRINT_AFTER_ONE_LAUNCH_IN) == 0) {
        print(name, op.thread(), stream(lines.get(i)));
      }
      if ((op instanceof Op.Read || op instanceof Op.SyncContext || op instanceof Op.StreamSync
          || op instanceof Op.EventSync || op instanceof Op.Write || op instanceof Op.Alloc) && pauses.nextBoolean()) {
        text.append(op.thread()).append(" queries\n");
      }
    }
    text.append(ending).append('\n');
    return this;
  }

  /** After one launch in this many (outside captures), two kernels that only print follow on its stream. */
  public static final int PRINT_AFTER_ONE_LAUNCH_IN = 6;

  /** Whether a call's line launches work on the stream its first argument names. */
  private static boolean isKernelCall(String line) {
    return line.startsWith("launch ") || line.startsWith("fillPacked ") || line.startsWith("fillDifference ")
        || line.startsWith("sgemmUpdate ");
  }

  /**
   * Two launches of {@code kw_print} on {@code stream}, printing its channel and the next two
   * counts. A channel is one thread's use of one stream: a thread's calls keep their order on a
   * stream, while two threads' per-thread default streams are not ordered with each other.
   */
  private void print(String program, int thread, String stream) {
    int channel = channelNumbers.computeIfAbsent(program + " " + thread + " " + stream, k -> {
      int number = printChannels.size();
      printChannels.put(number, "program " + program + ", thread " + thread + ", stream " + stream);
      return number;
    });
    for (int n = 0; n < 2; n++) {
      int count = printCounts.merge(channel, 1, Integer::sum) - 1;
      text.append(thread).append(" print ").append(stream).append(' ').append(channel).append(' ').append(count)
          .append('\n');
    }
  }

  /** The print channels' descriptions by number, as the device prints the number. */
  public java.util.Map<Integer, String> printChannels() {
    return java.util.Collections.unmodifiableMap(printChannels);
  }

  /** The thread of the program's that creates the second context and makes its calls there. */
  public static final int SECOND_CONTEXT_THREAD = 99;
  /** Buffers, streams and events of the calls around the second context: past any a program numbers. */
  /** The first context's buffer that the second context's work ends in, read there after the destroy. */
  public static final int SECOND_CONTEXT_RESULT = 9001;
  private static final int F = 9000, G = SECOND_CONTEXT_RESULT, S = 9002, X = 9100, B_STREAM = 9101, Y = 9102,
      B_EVENT = 9103, A_EVENT = 9105, A_EVENT_AFTER = 9106, H_IN = 9200, H_OUT = 9201;

  /**
   * Calls of a program that does part of its work in a second context on the same device, made
   * (cuCtxCreate) and used by a thread of its own, crossing between the two only as CUDA orders
   * such crossings: a {@code cuMemcpyPeer} (serialized with all pending work of both contexts) of
   * the program's buffer {@code source}, whose writers may be held, into the second context; each
   * context's stream (its own or the second context's legacy default stream) waiting for an event
   * recorded in the other before a {@code cuMemcpyPeerAsync} reads what that event covers, or before
   * a host function reads host memory that the first context's kernel wrote through its mapped
   * address (no copy that synchronizes both); perhaps a {@code cuCtxSynchronize} of one context
   * while the other has work pending; and the second context destroyed with a copy into the first
   * still pending there, which CUDA completes first. Every call reads only what an event, a stream's order or a
   * synchronizing call orders before it, so that the serial run observes what CUDA defines.
   */
  private void secondContext(int source, int sourceElements) {
    int n = 1 + contexts.nextInt(64);
    int bytes = 4 * n;
    int copied = 4 * Math.min(n, sourceElements);
    String a = "0 ", b = SECOND_CONTEXT_THREAD + " ";
    // The first context's stream: the legacy default stream or a blocking one of its own (either
    // follows the synchronous copies that filled its buffers).
    String s = contexts.nextBoolean() ? "0" : Integer.toString(S);
    text.append(a).append(line(new Op.Alloc(0, F, n, contexts.nextLong()))).append('\n');
    text.append(a).append(line(new Op.Alloc(0, G, n, contexts.nextLong()))).append('\n');
    if (!s.equals("0")) {
      text.append(a).append("streamCreate ").append(S).append(" 0\n");
    }
    text.append(a).append(line(new Op.AllocHost(0, H_IN, n, contexts.nextBoolean()))).append('\n');
    text.append(a).append(line(new Op.AllocHost(0, H_OUT, n, contexts.nextBoolean()))).append('\n');
    text.append(b).append("contextCreate\n");
    text.append(b).append("streamCreate ").append(B_STREAM).append(' ').append(bit(contexts.nextBoolean()))
        .append('\n');
    // The second context's work on a stream of its own, or on its own legacy default stream.
    String bs = contexts.nextInt(3) == 0 ? "0" : Integer.toString(B_STREAM);
    text.append(b).append(line(new Op.Alloc(0, X, n, contexts.nextLong()))).append('\n');
    text.append(b).append(line(new Op.Alloc(0, Y, n, contexts.nextLong()))).append('\n');
    // The program's buffer, as its pending (perhaps held) writers leave it, into the second context.
    text.append(contexts.nextBoolean() ? a : b).append("peer ").append(X).append(" 0 ").append(source).append(" 0 ")
        .append(copied).append('\n');
    text.append(b).append(launchLine(bs, SelfTestKernel.UPDATE, X, Y, -1, n, contexts.nextInt())).append('\n');
    text.append(a).append(launchLine(s, SelfTestKernel.FILL, F, -1, -1, n, contexts.nextInt())).append('\n');
    text.append(a).append("launchIntoHost ").append(s).append(' ').append(H_IN).append(" 0 ").append(F).append(" 0 ")
        .append(n).append(' ').append(contexts.nextInt()).append('\n');
    text.append(a).append("eventRecord ").append(A_EVENT).append(' ').append(s).append('\n');
    text.append(b).append("streamWaitEvent ").append(bs).append(' ').append(A_EVENT).append('\n');
    // Its gate is the host's, never closed: H_OUT = H_IN * 5 + 1, a stream callback every other time.
    text.append(b).append(contexts.nextBoolean() ? "hostFunction " : "streamCallback ").append(bs)
        .append(" -1 ").append(H_IN).append(" 0 ").append(H_OUT).append(" 0 ").append(bytes).append('\n');
    text.append(b).append("peerAsync ").append(bs).append(' ').append(Y).append(" 0 ").append(F).append(" 0 ")
        .append(bytes).append('\n');
    text.append(b).append("eventRecord ").append(B_EVENT).append(' ').append(bs).append('\n');
    if (contexts.nextBoolean()) {
      text.append(a).append("ctxSync\n"); // the second context's copy may still be pending
    }
    text.append(a).append("streamWaitEvent ").append(s).append(' ').append(B_EVENT).append('\n');
    text.append(a).append("peerAsync ").append(s).append(' ').append(G).append(" 0 ").append(X).append(" 0 ")
        .append(bytes).append('\n');
    text.append(a).append(launchLine(s, SelfTestKernel.SCALE, F, G, -1, n, contexts.nextInt())).append('\n');
    if (contexts.nextBoolean()) {
      text.append(b).append("ctxSync\n"); // the first context's kernel may still be pending, or held
    }
    text.append(a).append("eventRecord ").append(A_EVENT_AFTER).append(' ').append(s).append('\n');
    text.append(b).append("streamWaitEvent ").append(bs).append(' ').append(A_EVENT_AFTER).append('\n');
    text.append(b).append("peerAsync ").append(bs).append(' ').append(G).append(" 0 ").append(Y).append(" 0 ")
        .append(bytes).append('\n');
    if (contexts.nextBoolean()) {
      text.append(b).append("read ").append(Y).append(" 0 ").append(bytes).append('\n');
    }
    text.append(b).append("contextDestroy\n"); // the copy into G may be pending: CUDA completes it first
    text.append(a).append("read ").append(G).append(" 0 ").append(bytes).append('\n');
    text.append(a).append("observeHost ").append(H_OUT).append('\n');
  }

  /** A self-test kernel's launch line over buffers from their start (-1: no buffer). */
  private static String launchLine(Object stream, SelfTestKernel kernel, int out, int in1, int in2, int n, int k) {
    return "launch " + stream + " kw_" + kernel.name().toLowerCase(Locale.ROOT) + " " + SelfTestKernel.blocks(n) + " 0 " + out
        + " 0 " + in1 + " 0 " + in2 + " 0 " + n + " " + k;
  }

  /**
   * The last of the calls from {@code first} on that a program may capture into a graph: kernels,
   * device copies and asynchronous memsets, of one thread, on one stream it created, nothing else
   * between them; at least two, at most eight. {@code first - 1} where there are not two.
   */
  private static int capturable(List<Op> ops, List<String> lines, int first) {
    String stream = capturableStream(lines.get(first));
    int last = first - 1;
    for (int i = first; i < ops.size() && i < first + 8; i++) {
      if (stream == null || !stream.equals(capturableStream(lines.get(i))) || ops.get(i).thread() != ops.get(first).thread()) {
        break;
      }
      last = i;
    }
    return last > first ? last : first - 1;
  }

  /** The stream of a call (its line) that a capture may hold, or null. */
  private static String capturableStream(String line) {
    boolean kernel = line.startsWith("launch ") && line.split(" ")[4].equals("0"); // no failing launch
    boolean work = kernel || line.startsWith("copy ") || line.startsWith("memset ") && line.split(" ")[2].equals("0");
    return work && Long.parseLong(stream(line)) > 2 ? stream(line) : null;
  }

  /** The stream handle of a call's line: its first argument. */
  private static String stream(String line) {
    return line.split(" ")[1];
  }

  /** Between two programs: the module unloaded and loaded again. */
  public ProgramScript reloadModule() {
    text.append("reloadModule\n");
    return this;
  }

  /** Between two programs: the primary context released to nothing and retained anew. */
  public ProgramScript recreateContext() {
    text.append("recreateContext\n");
    return this;
  }

  private static int javaPriority(PriorityClass c) {
    return switch (c) {
      case HIGH -> Thread.MAX_PRIORITY;
      case LOW -> Thread.MIN_PRIORITY;
      default -> Thread.NORM_PRIORITY;
    };
  }

  public String text() {
    return text.toString();
  }

  /**
   * The call's line, a kernel launch perhaps made through the fuzz's own kernels, which write the
   * same values through other parameter shapes (by its constant: the same in every run): a FILL as
   * {@code kw_fill_packed}, its pointer at offset 4 of a packed structure, or as {@code
   * kw_fill_difference}, through another live buffer's pointer and the difference of the two.
   */
  private static String reshaped(Op op, String line, List<Integer> live) {
    if (op instanceof Op.Launch l && l.kernel() == SelfTestKernel.FILL && l.mode() == Op.LaunchMode.PRECISE) {
      if ((l.k() & 3) == 1) {
        return "fillPacked " + l.stream() + " " + at(l.out()) + " " + l.n() + " " + l.k();
      }
      int other = live.stream().filter(b -> b != l.out().buf()).findFirst().orElse(-1);
      if ((l.k() & 3) == 2 && other >= 0) {
        return "fillDifference " + l.stream() + " " + other + " 0 " + at(l.out()) + " " + l.n() + " " + l.k();
      }
    }
    return line;
  }

  /** One call, without its thread. */
  public static String line(Op op) {
    if (op instanceof Op.AllocHost a) {
      return "allocHost " + a.host() + " " + a.elements() + " " + bit(a.registered());
    } else if (op instanceof Op.CreateStream c) {
      return "streamCreate " + c.stream() + " " + bit(c.nonBlocking());
    } else if (op instanceof Op.Alloc a) {
      return "alloc " + a.buf() + " " + a.elements() + " " + hex(Program.data(a.dataSeed(), a.elements()));
    } else if (op instanceof Op.Free f) {
      return "free " + f.buf();
    } else if (op instanceof Op.Launch l) {
      return launch(l);
    } else if (op instanceof Op.Memset m) {
      return "memset " + m.stream() + " " + bit(m.sync()) + " " + at(m.dst()) + " " + m.n() * 4 + " " + (m.value() & 0xFF);
    } else if (op instanceof Op.Write w) {
      return "write " + at(w.dst()) + " " + hex(Program.data(w.dataSeed(), w.n()));
    } else if (op instanceof Op.Read r) {
      return "read " + at(r.src()) + " " + r.n() * 4;
    } else if (op instanceof Op.ReadAsync r) {
      return "readAsync " + r.stream() + " " + r.host() + " " + r.hostOffset() * 4 + " " + at(r.src()) + " " + r.n() * 4;
    } else if (op instanceof Op.Copy c) {
      return "copy " + c.stream() + " " + at(c.dst()) + " " + at(c.src()) + " " + c.n() * 4;
    } else if (op instanceof Op.SyncContext) {
      return "ctxSync";
    } else if (op instanceof Op.StreamSync s) {
      return "streamSync " + s.stream();
    } else if (op instanceof Op.EventRecord e) {
      return "eventRecord " + e.event() + " " + e.stream();
    } else if (op instanceof Op.EventSync e) {
      return "eventSync " + e.event();
    } else if (op instanceof Op.StreamWaitEvent w) {
      return "streamWaitEvent " + w.stream() + " " + w.event();
    } else if (op instanceof Op.HostWrite w) {
      return "hostWrite " + w.host() + " " + w.offset() * 4 + " " + hex(Program.data(w.dataSeed(), w.n()));
    } else if (op instanceof Op.WriteAsync w) {
      return "writeAsync " + w.stream() + " " + at(w.dst()) + " " + w.host() + " " + w.hostOffset() * 4 + " " + w.n() * 4;
    } else if (op instanceof Op.LaunchIntoHost l) {
      return "launchIntoHost " + l.stream() + " " + l.host() + " " + l.hostOffset() * 4 + " " + at(l.in()) + " " + l.n()
          + " " + l.k();
    } else if (op instanceof Op.WriteConstant c) {
      return "writeConstant " + hex(Program.data(c.dataSeed(), 4));
    } else if (op instanceof Op.LaunchReadingConstant l) {
      return "launchReadingConstant " + l.stream() + " " + at(l.out()) + " " + l.n() + " " + l.k();
    } else if (op instanceof Op.LaunchWithoutPtx l) {
      return "launchWithoutPtx " + l.stream() + " " + at(l.slot()) + " " + at(l.target()) + " " + l.n() + " " + l.k();
    } else if (op instanceof Op.HostFunction h) {
      // Every other host function a stream callback, from the gate's number: the same in every run.
      return (h.gate() % 2 == 0 ? "hostFunction " : "streamCallback ") + h.stream() + " " + h.gate() + " " + h.srcHost() + " " + h.srcOffset() * 4 + " "
          + h.dstHost() + " " + h.dstOffset() * 4 + " " + h.n() * 4;
    } else if (op instanceof Op.OpenGate g) {
      return "openGate " + g.gate();
    } else if (op instanceof Op.ObserveHost o) {
      return "observeHost " + o.host();
    }
    throw new IllegalArgumentException("no script line for " + op);
  }

  /**
   * A launch as the program writes it: the kernel on its stream; an opaque library call is made on
   * the legacy stream, and a launch that fails asks for more dynamic shared memory than a block has.
   * A quarter of the updates (from their constant) are a cuBLAS GEMM touching the same bytes.
   */
  private static String launch(Op.Launch l) {
    SelfTestKernel kernel = l.kernel();
    if (kernel == SelfTestKernel.UPDATE && l.mode() == Op.LaunchMode.PRECISE && l.in1() != null && (l.k() & 3) == 0) {
      // The same accesses by cuBLAS: out (read and written) = alpha * in * in[0] + out, reading in.
      return "sgemmUpdate " + l.stream() + " " + at(l.out()) + " " + at(l.in1()) + " " + l.n() + " "
          + (l.k() >>> 24) / 16f;
    }
    long stream = l.mode() == Op.LaunchMode.OPAQUE ? 0 : l.stream();
    int shared = l.mode() == Op.LaunchMode.FAILS ? 1 << 20 : 0;
    String out = l.out().buf() + " " + (4L * l.out().offset() + kernel.outPointerOffset(l.n()));
    return "launch " + stream + " kw_" + kernel.name().toLowerCase(Locale.ROOT) + " " + SelfTestKernel.blocks(l.n()) + " "
        + shared + " " + out + " " + atOrNull(l.in1()) + " " + atOrNull(l.in2()) + " " + l.n() + " " + l.k();
  }

  private static String at(Op.At at) {
    return at.buf() + " " + at.offset() * 4;
  }

  private static String atOrNull(Op.At at) {
    return at == null ? "-1 0" : at(at);
  }

  private static String bit(boolean b) {
    return b ? "1" : "0";
  }

  private static String hex(byte[] data) {
    return HexFormat.of().formatHex(data);
  }
}
