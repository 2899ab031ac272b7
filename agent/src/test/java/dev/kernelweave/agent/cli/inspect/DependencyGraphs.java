package dev.kernelweave.agent.cli.inspect;

/** Test access to a {@link DependencyGraph} with a small bound. */
public final class DependencyGraphs {
  private DependencyGraphs() {}

  public static DependencyGraph bounded(int maxNodes) {
    return new DependencyGraph(Long.MIN_VALUE, Long.MAX_VALUE, maxNodes);
  }

  public static DependencyGraph bounded(int maxNodes, long from, long to) {
    return new DependencyGraph(from, to, maxNodes);
  }

  /** How many calls the graph holds. */
  public static int held(DependencyGraph graph) {
    return graph.held();
  }
}
