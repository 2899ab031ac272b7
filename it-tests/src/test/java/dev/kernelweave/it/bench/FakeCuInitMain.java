package dev.kernelweave.it.bench;

/** A stand-in for {@code dev.kernelweave.kernels.CuInitMain}: says so and exits 0. */
public final class FakeCuInitMain {
  private FakeCuInitMain() {}

  public static void main(String[] args) {
    System.out.println("cuInit ok (fake)");
  }
}
