package dev.kernelweave.interceptor.driver;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.Calls;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import net.bytebuddy.asm.Advice;

/**
 * The driver calls that end a context, whichever thread makes them (one with another context
 * current, or none: a shutdown hook): {@code cuCtxDestroy}, {@code cuDevicePrimaryCtxReset} and {@code
 * cuDevicePrimaryCtxRelease}, whose last release destroys the primary context. Before each, what every
 * context holds is issued and completed; after a context ended, its scheduler is dropped, so that a
 * context made again under the same handle starts fresh. {@code cuDevicePrimaryCtxRetain} tells which
 * handle is a device's primary context. The exits; the enter of each is {@code CallAdvice.PLACED}, whose
 * rows issue what every context holds first. Referred to by name ({@link #CONTEXT_DESTROY} ...).
 */
final class ContextEndAdvice {

  static final String CONTEXT_DESTROY = ContextEndAdvice.class.getName() + "$ContextDestroy";
  static final String PRIMARY_RESET = ContextEndAdvice.class.getName() + "$PrimaryReset";
  static final String PRIMARY_RETAIN = ContextEndAdvice.class.getName() + "$PrimaryRetain";
  static final String PRIMARY_RELEASE = ContextEndAdvice.class.getName() + "$PrimaryRelease";

  private ContextEndAdvice() {}

  static final class ContextDestroy {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUcontext context,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
      if (thrown == null && result == 0) {
        DriverCalls.contextDestroyed(context);
      }
    }
  }

  /**
   * {@code cuDevicePrimaryCtxReset(dev)}: destroys the device's primary context, whichever thread calls
   * it: what every context holds is issued and done first; the context's scheduler goes with it.
   */
  static final class PrimaryReset {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUdevice device,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (Calls.endContextReset(r, result, thrown)) {
        DriverCalls.primaryEnded(device);
      }
    }
  }

  /** {@code cuDevicePrimaryCtxRetain(ctx, dev)}: which handle is the device's primary context. */
  static final class PrimaryRetain {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUcontext context,
        @Advice.Argument(1) CUdevice device, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
      if (r != null && thrown == null && result == 0) {
        DriverCalls.primaryRetained(device, context);
      }
    }
  }

  /**
   * {@code cuDevicePrimaryCtxRelease(dev)}: the last release destroys the primary context, so every
   * release is taken for one that may: what every context holds is issued and done first, and when
   * the driver says the context is no longer active, its scheduler goes with it.
   */
  static final class PrimaryRelease {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUdevice device,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
      if (r != null && thrown == null && result == 0) {
        DriverCalls.primaryReleased(device);
      }
    }
  }
}
