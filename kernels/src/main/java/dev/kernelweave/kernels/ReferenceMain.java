package dev.kernelweave.kernels;

/**
 * Prints the SHA-256 of every workload's CPU reference at both sizes, one {@code NAME SIZE SHA256}
 * line each: the checksums a correct GPU run reports (bench included, where WorkloadMain does not
 * compare). Runs anywhere; the bench references take a few seconds each.
 */
public final class ReferenceMain {

  private ReferenceMain() {}

  public static void main(String[] args) {
    for (String name : Workloads.names()) {
      for (Size size : Size.values()) {
        System.out.println(
            name
                + " "
                + size.label()
                + " "
                + Outputs.sha256(Workloads.problem(name, size).reference()));
      }
    }
  }
}
