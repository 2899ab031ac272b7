package dev.kernelweave.calltable;

import static dev.kernelweave.text.ConstantNames.constantNamed;

import dev.kernelweave.call.AccessMode;

/**
 * One pointer argument of a call and what the call does to the memory it names.
 *
 * @param argument the argument's index in the intercepted method
 * @param side where the memory is
 * @param access what the call does to it
 */
public record Operand(int argument, Side side, AccessMode access) {

  /** Where an operand's memory is. */
  public enum Side {
    /** Device memory: an address in no known allocation makes the call a barrier. */
    DEVICE,
    /** Host memory: ordered only where the agent saw it allocated page-locked; Java memory orders nothing. */
    HOST,
    /** Either, found by looking the address up (unified addressing, {@code cudaMemcpyDefault}). */
    ANY,
    /** As the call's {@code cudaMemcpyKind} argument says. */
    BY_COPY_KIND
  }

  /** Parses {@code 0:DW}: argument, side (D, H, A, K), access (R, W, RW). */
  static Operand parse(String token) {
    int colon = token.indexOf(':');
    int argument = Integer.parseInt(token.substring(0, colon));
    Side side = switch (token.charAt(colon + 1)) {
      case 'D' -> Side.DEVICE;
      case 'H' -> Side.HOST;
      case 'A' -> Side.ANY;
      case 'K' -> Side.BY_COPY_KIND;
      default -> throw new IllegalArgumentException("unknown side in " + token);
    };
    AccessMode mode = constantNamed(AccessMode.values(), AccessMode::symbol, token.substring(colon + 2));
    if (mode == null) {
      throw new IllegalArgumentException("unknown access in " + token);
    }
    return new Operand(argument, side, mode);
  }
}
