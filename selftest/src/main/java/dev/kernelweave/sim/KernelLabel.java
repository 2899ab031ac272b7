package dev.kernelweave.sim;

import java.util.Locale;

/**
 * A kernel operation's description, formatted only when read (in a fault's message): the warm-up
 * runs millions of operations on the simulated device, and formatting each one's label was most of
 * its garbage.
 */
record KernelLabel(String kernel, int n, int k) {
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s n=%d k=0x%08x", kernel, n, k);
  }
}
