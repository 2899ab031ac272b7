package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallRecord;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code inspect dag}: the dependencies that the device work's accesses imply, between overlapping
 * byte ranges of one allocation, as the scheduler tracks them: read-after-write (RAW: a read after
 * the writes of the bytes it reads), write-after-read (WAR: a write after the reads of its bytes
 * since they were written) and write-after-write (WAW: a write after a write of the same bytes with
 * no read of them in between; with reads in between, RAW and WAR already order the two writes). A
 * write forgets the older accesses whose bytes it covers: what follows it follows them through it.
 *
 * <p>Edges are drawn as {@code from -> to}, labelled with the kinds and allocations. When the
 * journal carries the scheduler's decisions, solid edges are the ones the scheduler enforced
 * itself (both calls on one stream, or a cross-stream wait it recorded) and dashed edges the ones it
 * ordered through others; a recorded wait that no access implies is drawn grey, labelled "wait".
 * Without decisions (a pass-through journal), dashed edges are those implied transitively by
 * others (the transitive reduction is solid).
 *
 * <p>A launch issued inside a replayed CUDA graph keeps its own node and edges (the graph's edges
 * are the same data dependencies), labelled with the window's number and grouped with the rest of
 * its replay in a cluster. The replay waited as one: a wait recorded on its first launch counts for
 * all of them, and a wait for any of its launches (the scheduler names the last) for the whole.
 *
 * <p>Only calls with {@code from <= seq <= to} take part (an edge needs both ends drawn, and a call
 * before the range can only hide an edge whose source is also before it). Calls are taken in
 * journal order, which is the order they returned in: for calls of different threads that overlap
 * in time this may differ from the order in which the scheduler decided them.
 *
 * <p>Memory is bounded on any journal: at most {@link #MAX_NODES} calls are held; past that the
 * graph drops what it held, only counts the calls in range, and {@link #tooLarge} asks for a
 * narrower range.
 *
 * <p>Time is near-linear: per allocation, the reads and the writes still live are kept apart, so
 * that a read looks only at the writes before it (a buffer read by every launch and never written,
 * like weights, no longer makes each read scan all the reads before it), and the edges into a call
 * are found through a table of the call being added.
 */
public final class DependencyGraph {

  /** Beyond this many nodes the transitive reduction is skipped (its cost is quadratic). */
  static final int MAX_REDUCED_NODES = 10_000;
  /** The most calls one graph holds (a few hundred MB at most); Graphviz cannot lay out more. */
  public static final int MAX_NODES = 100_000;

  private static final String[] PALETTE = {
    "#cfe2f3", "#d9ead3", "#fff2cc", "#f4cccc", "#d9d2e9", "#fce5cd", "#d0e0e3", "#ead1dc",
  };

  private final long from;
  private final long to;
  private final int maxNodes;
  private long inRange;
  private long firstSeq = Long.MAX_VALUE;
  private long lastSeq = Long.MIN_VALUE;
  private final Map<Integer, Allocation> allocations = new HashMap<>();
  private final Map<Long, Node> nodes = new LinkedHashMap<>();
  /** The edges into the call being added, by source: cleared for each call. */
  private final Map<Long, Edge> addingInto = new HashMap<>();
  /** Accesses taken so far: their journal order. */
  private long order;
  /** Earlier accesses looked at while adding calls: the measure of the graph's cost. */
  private long accessesExamined;
  private final List<Edge> edges = new ArrayList<>();
  /** Replays with a call drawn, in order; per context, the one being read. */
  private final List<Replay> replays = new ArrayList<>();
  private final Map<Long, Replay> openReplays = new HashMap<>();

  /** The calls of one replayed window drawn here, and the waits the replay as a whole made. */
  private static final class Replay {
    final long context;
    final long window;
    final boolean captured;
    final List<Long> members = new ArrayList<>();
    /** The first call's predecessors, which the replay carries; none when its first call is out of range. */
    final long[] predecessors;

    Replay(CallRecord first) {
      context = first.context;
      window = first.graphWindow;
      captured = first.graphCaptured;
      predecessors = java.util.Arrays.copyOf(first.predecessors, first.predecessorCount);
    }
  }

  /**
   * The accesses of one allocation that a later access may still depend on, each list oldest first:
   * the reads, and the writes (read-writes included) not covered by a later write.
   */
  private static final class Allocation {
    final ArrayList<Access> reads = new ArrayList<>();
    final ArrayList<Access> writes = new ArrayList<>();
  }

  /** One call's access to {@code [start, end)} of an allocation, the {@code order}th taken. */
  private record Access(long seq, long order, long start, long end, boolean writes) {
    boolean overlaps(long s, long e) {
      return start < e && s < end;
    }
  }

  private static final class Node {
    final long seq;
    final int index;
    /** The call, or the kernel it launched. */
    final String what;
    final int stream;
    final long graphWindow;
    final boolean graphCaptured;
    final long[] predecessors;
    final boolean barrier;
    final Replay replay;
    /** The edges into this call, in the order they were found. */
    final List<Edge> into = new ArrayList<>(2);

    Node(CallRecord r, int index, Replay replay) {
      this.seq = r.seq;
      this.index = index;
      this.what = r.kernel.isEmpty() ? r.name : r.kernel; // interned by the reader: not a copy per call
      this.graphWindow = r.graphWindow;
      this.graphCaptured = r.graphCaptured;
      this.stream = r.stream;
      this.predecessors = java.util.Arrays.copyOf(r.predecessors, r.predecessorCount);
      this.barrier = r.barrier || r.touchesUnknownMemory;
      this.replay = replay;
    }

    /** Its DOT label, built when printed rather than held for every call. */
    String label() {
      return seq + " " + what + (stream >= 0 ? "\\ns" + stream : "")
          + (replay != null ? "\\ngraph #" + graphWindow + (graphCaptured ? " captured" : "") : "");
    }

    Edge from(long source) {
      for (Edge e : into) {
        if (e.from == source) {
          return e;
        }
      }
      return null;
    }

    /** Whether the scheduler made this call wait for {@code a} (for a replay: the replay for a's). */
    boolean waitsFor(Node a) {
      long[] waits = replay != null ? replay.predecessors : predecessors;
      for (long p : waits) {
        if (p == a.seq || (a.replay != null && a.replay.members.contains(p))) {
          return true;
        }
      }
      return false;
    }
  }

  private static final class Edge {
    final long from;
    final long to;
    /** The kinds and allocations, joined by DOT line breaks. */
    String labels;
    boolean implied;
    boolean dashed;

    Edge(long from, long to) {
      this.from = from;
      this.to = to;
    }

    void label(String label) {
      if (labels == null) {
        labels = label;
      } else if (!(("\\n" + labels + "\\n").contains("\\n" + label + "\\n"))) {
        labels = labels + "\\n" + label;
      }
    }
  }

  public DependencyGraph(long from, long to) {
    this(from, to, MAX_NODES);
  }

  DependencyGraph(long from, long to, int maxNodes) {
    this.from = from;
    this.to = to;
    this.maxNodes = maxNodes;
  }

  /** Whether the range held more device calls than one graph may: nothing should be printed. */
  public boolean tooLarge() {
    return inRange > maxNodes;
  }

  /** How many calls the graph holds. */
  public int held() {
    return nodes.size();
  }

  /** The one line that says so and how to narrow the range. */
  public String tooLargeMessage() {
    return "dag: " + inRange + " device calls (seq " + firstSeq + " to " + lastSeq + ") are more than the "
        + maxNodes + " one graph holds; draw a part with --from SEQ --to SEQ";
  }

  private boolean inRange(long seq) {
    return seq >= from && seq <= to;
  }

  public void add(CallRecord r) {
    if (!r.kind.isDeviceWork()) {
      return;
    }
    if (!inRange(r.seq) || nodes.containsKey(r.seq)) {
      return;
    }
    inRange++;
    firstSeq = Math.min(firstSeq, r.seq);
    lastSeq = Math.max(lastSeq, r.seq);
    if (inRange > maxNodes) {
      if (!nodes.isEmpty()) {
        // Nothing will be drawn: what was held goes, so that the rest of the journal is only counted.
        nodes.clear();
        edges.clear();
        allocations.clear();
        replays.clear();
        openReplays.clear();
      }
      return;
    }
    Node node = new Node(r, nodes.size(), replayOf(r));
    nodes.put(r.seq, node);
    addingInto.clear();
    for (int i = 0; i < r.accessCount; i++) {
      Allocation a = allocations.computeIfAbsent(r.accessId[i], id -> new Allocation());
      int id = r.accessId[i];
      long start = r.accessOffset[i];
      long end = start + Math.max(r.accessSize[i], 1);
      boolean reads = r.accessMode(i).reads();
      boolean writes = r.accessMode(i).writes();
      accessesExamined += a.writes.size();
      for (Access o : a.writes) {
        if (o.seq == r.seq || !o.overlaps(start, end)) {
          continue;
        }
        if (reads) {
          edge(o.seq, node, "RAW #", id);
        } else if (writes && !readSince(a.reads, o, Math.max(o.start, start), Math.min(o.end, end), r.seq)) {
          edge(o.seq, node, "WAW #", id);
        }
      }
      if (writes) {
        accessesExamined += a.reads.size();
        for (Access o : a.reads) {
          if (o.seq != r.seq && o.overlaps(start, end)) {
            edge(o.seq, node, "WAR #", id);
          }
        }
      }
    }
    for (int i = 0; i < r.accessCount; i++) {
      long start = r.accessOffset[i];
      long end = start + Math.max(r.accessSize[i], 1);
      Allocation a = allocations.get(r.accessId[i]);
      boolean writes = r.accessMode(i).writes();
      if (writes) {
        accessesExamined += a.reads.size() + a.writes.size();
        a.reads.removeIf(o -> o.seq != r.seq && o.start >= start && o.end <= end);
        a.writes.removeIf(o -> o.seq != r.seq && o.start >= start && o.end <= end);
      }
      (writes ? a.writes : a.reads).add(new Access(r.seq, order++, start, end, writes));
    }
  }

  /** The replay the call belongs to, or null; its calls are journaled one after another. */
  private Replay replayOf(CallRecord r) {
    if (r.graphWindow <= 0) {
      return null;
    }
    Replay open = openReplays.get(r.context);
    if (open == null || open.window != r.graphWindow) {
      open = new Replay(r);
      openReplays.put(r.context, open);
      replays.add(open);
    }
    open.members.add(r.seq);
    return open;
  }

  /**
   * Whether a read taken after {@code write}, by a call other than {@code seq}, read bytes of
   * {@code [start, end)}. The reads are in the order taken: only those after the write are looked at.
   */
  private boolean readSince(List<Access> reads, Access write, long start, long end, long seq) {
    int low = 0;
    int high = reads.size();
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (reads.get(mid).order < write.order) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    for (int j = low; j < reads.size(); j++) {
      accessesExamined++;
      Access o = reads.get(j);
      if (o.seq != seq && o.overlaps(start, end)) {
        return true;
      }
    }
    return false;
  }

  /** Earlier accesses looked at so far: grows linearly with the calls when no access rescans history. */
  long accessesExamined() {
    return accessesExamined;
  }

  /** Adds (or labels) the edge {@code fromSeq -> to}; {@code kind} and {@code allocation} make its label. */
  private void edge(long fromSeq, Node to, String kind, int allocation) {
    Edge e = addingInto.get(fromSeq);
    if (e == null) {
      e = new Edge(fromSeq, to.seq);
      e.implied = true;
      addingInto.put(fromSeq, e);
      to.into.add(e);
      edges.add(e);
    }
    e.label(kind + allocation);
  }

  /** Writes the graph in Graphviz DOT. */
  public void printDot(PrintStream out) {
    boolean decisions = nodes.values().stream().anyMatch(n -> n.stream >= 0 || n.predecessors.length > 0);
    String note;
    if (decisions) {
      for (Node n : nodes.values()) {
        for (long p : n.predecessors) {
          if (nodes.containsKey(p) && n.from(p) == null) {
            Edge e = new Edge(p, n.seq);
            e.label("wait");
            n.into.add(e);
            edges.add(e);
          }
        }
      }
      for (Edge e : edges) {
        Node a = nodes.get(e.from);
        Node b = nodes.get(e.to);
        boolean sameStream = a.stream >= 0 && a.stream == b.stream;
        e.dashed = e.implied && !sameStream && !b.waitsFor(a);
      }
      note = "solid: ordered by the scheduler itself (same stream or a recorded wait); "
          + "dashed: implied, ordered through other edges; grey: a wait no access implies";
    } else if (nodes.size() <= MAX_REDUCED_NODES) {
      markTransitive();
      note = "solid: the transitive reduction; dashed: implied by other edges";
    } else {
      note = nodes.size() + " nodes: transitive reduction skipped, narrow with --from/--to";
    }

    out.println("digraph kernelweave {");
    out.println("  // " + note);
    out.println("  rankdir=TB;");
    out.println("  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"monospace\", fontsize=10];");
    out.println("  edge [fontname=\"monospace\", fontsize=9];");
    for (Node n : nodes.values()) {
      StringBuilder attrs = new StringBuilder();
      attrs.append("label=\"").append(escape(n.label())).append('"');
      if (n.stream >= 0) {
        attrs.append(", fillcolor=\"").append(PALETTE[n.stream % PALETTE.length]).append('"');
      }
      if (n.barrier) {
        attrs.append(", color=red, penwidth=2");
      }
      out.println("  n" + n.seq + " [" + attrs + "];");
    }
    for (int i = 0; i < replays.size(); i++) {
      Replay r = replays.get(i);
      StringBuilder members = new StringBuilder();
      for (long seq : r.members) {
        members.append(" n").append(seq).append(';');
      }
      out.println("  subgraph cluster_graph" + i + " { label=\"graph replay #" + r.window
          + (r.captured ? " (captured)" : "") + "\"; style=dashed; color=grey50;" + members + " }");
    }
    for (Edge e : edges) {
      StringBuilder attrs = new StringBuilder();
      attrs.append("label=\"").append(escape(e.labels)).append('"');
      if (e.dashed) {
        attrs.append(", style=dashed");
      }
      if (!e.implied) {
        attrs.append(", color=grey50, fontcolor=grey50");
      }
      out.println("  n" + e.from + " -> n" + e.to + " [" + attrs + "];");
    }
    out.println("}");
  }

  /** Marks as dashed each edge a -> b where a is already an ancestor of another of b's sources. */
  private void markTransitive() {
    Node[] byIndex = nodes.values().toArray(new Node[0]);
    BitSet[] ancestors = new BitSet[byIndex.length];
    for (Node b : byIndex) {
      BitSet anc = new BitSet();
      List<Edge> into = b.into;
      for (Edge e : into) {
        Node a = nodes.get(e.from);
        anc.or(ancestors[a.index]);
        anc.set(a.index);
      }
      ancestors[b.index] = anc;
      for (Edge e : into) {
        int a = nodes.get(e.from).index;
        for (Edge other : into) {
          int q = nodes.get(other.from).index;
          if (q != a && ancestors[q].get(a)) {
            e.dashed = true;
            break;
          }
        }
      }
    }
  }

  /** Escapes a DOT string; {@code \n} sequences already in it stay line breaks. */
  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"') {
        b.append("\\\"");
      } else if (c == '\\' && i + 1 < s.length() && s.charAt(i + 1) == 'n') {
        b.append("\\n");
        i++;
      } else if (c == '\\') {
        b.append("\\\\");
      } else if (c == '\n') {
        b.append("\\n");
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
