package dev.kernelweave.calltable;

/**
 * What a call means for the launches and routines a context holds for a graph ({@code
 * LaunchWindows}), beyond what its placement does (a placed call issues them first anyway).
 */
public enum WindowEffect {
  /** Nothing beyond its placement. */
  NEUTRAL,
  /** The call itself may be held: a kernel launch, a cuBLAS routine, when graphs are on. */
  MAY_BE_HELD,
  /** Issued first: the call changes how later launches run (a setting, a cuBLAS handle's state). */
  ENDED,
  /**
   * Issued first, then every launch the context knows forgotten: a module unload, after which its
   * function handles may name other kernels; a change of a function's or the context's attributes,
   * after which a configuration that launched before may fail.
   */
  FORGOTTEN,
  /**
   * What every context holds is issued and completed first: the call reaches into another context
   * (a peer copy) or may end a context from any thread (a destroy, a reset, a primary release).
   */
  ENDED_IN_EVERY_CONTEXT
}
